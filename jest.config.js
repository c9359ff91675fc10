/**
 * One jest run, three projects: unit tests (*.spec.ts, no I/O), integration
 * and end-to-end tests (*.test.ts, real PostgreSQL). TypeScript and the
 * ESM-only inversify packages go through swc into CommonJS.
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|jose)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/tests/integration/**/*.test.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'], testTimeout: 30000 },
  ],
};
