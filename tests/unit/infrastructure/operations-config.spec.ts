import { ConfigError, loadConfig } from '../../../src/infrastructure/config/config';

describe('loadConfig: operations', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).ops).toEqual({
      logLevel: 'info',
      trustProxy: false,
      maxHeaderBytes: 16384,
      authFailureLimit: 20,
      authFailureWindowSeconds: 60,
    });
  });

  it('reads every variable', () => {
    const { ops } = loadConfig({
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '2',
      MAX_HEADER_BYTES: '8192',
      AUTH_FAILURE_LIMIT: '5',
      AUTH_FAILURE_WINDOW_SECONDS: '300',
    });
    expect(ops).toEqual({ logLevel: 'debug', trustProxy: 2, maxHeaderBytes: 8192, authFailureLimit: 5, authFailureWindowSeconds: 300 });
  });

  it.each([
    ['false', false],
    ['true', true],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).ops.trustProxy).toEqual(expected);
  });

  it.each([
    ['LOG_LEVEL', 'loud'],
    ['AUTH_FAILURE_LIMIT', '0'],
    ['AUTH_FAILURE_WINDOW_SECONDS', 'soon'],
    ['MAX_HEADER_BYTES', '10'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  });
});
