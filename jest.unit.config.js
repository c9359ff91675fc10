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

const os = require('node:os');

module.exports = {
  displayName: 'unit',
  // jest's default is one worker less than the cores: on a 2-core machine one
  // worker, all 130-odd files in a row. Two workers there, measured: about 9 s
  // instead of 13. Larger machines keep the default. A run-wide option:
  // jest.config.js leaves it out of the project it takes from here.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(inversify|@inversifyjs|jose|@apidevtools)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testMatch: ['<rootDir>/tests/unit/**/*.spec.ts'],
};
