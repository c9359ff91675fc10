/**
 * One jest run, three projects: unit tests (jest.unit.config.js, no I/O),
 * integration and end-to-end tests (*.test.ts, real PostgreSQL). The global
 * setup (build the service, start PostgreSQL) is here only, so that
 * `npm run test:unit` skips it while `npm test` stays one command.
 */
// maxWorkers is a run-wide option, not a project's: `npm test` keeps jest's default.
const { maxWorkers: _unitWorkers, ...unit } = require('./jest.unit.config');

// The unit project's transform and environment, with another displayName and testMatch.
const { displayName, testMatch, ...common } = unit;
// Every answer a test receives from /api/v1 or /oauth/introspect is checked against the OpenAPI document.
const driftCheck = { setupFilesAfterEnv: ['<rootDir>/tests/support/io-timeout.setup.ts', '<rootDir>/tests/support/openapi-drift.setup.ts'] };

module.exports = {
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  projects: [
    unit,
    { ...common, ...driftCheck, displayName: 'integration', testMatch: ['<rootDir>/tests/integration/**/*.test.ts'] },
    { ...common, ...driftCheck, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'] },
  ],
};
