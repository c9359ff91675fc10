// jest reads testTimeout only from the global config, not from a project's: a
// file that starts the service in beforeAll gets this bound, not the 5 s default,
// which a loaded 2-core machine can overrun while building its app.
jest.setTimeout(30_000);
