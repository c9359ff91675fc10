/**
 * Unit tests (*.spec.ts): no I/O, so no global setup — no tsc build, no
 * PostgreSQL — and `npm run test:unit` (this file alone) answers in seconds.
 * jest.config.js takes this project as is into the full run. TypeScript and
 * the ESM-only inversify packages go through swc into CommonJS.
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

module.exports = {
  displayName: 'unit',
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|jose|@apidevtools)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testMatch: ['<rootDir>/tests/unit/**/*.spec.ts'],
};
