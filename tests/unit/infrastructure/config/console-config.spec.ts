import { loadConsoleConfig } from '../../../../src/infrastructure/config/console-config';

describe('loadConsoleConfig', () => {
  it('defaults to no issuer and the keygate-console client', () => {
    expect(loadConsoleConfig({}, false)).toMatchObject({ oidcIssuer: null, oidcClientId: 'keygate-console' });
  });

  it('keeps the issuer without a trailing slash', () => {
    expect(loadConsoleConfig({ OIDC_ISSUER: 'https://idp.example.com/realms/x/', OIDC_CLIENT_ID: 'console' }, true)).toMatchObject({
      oidcIssuer: 'https://idp.example.com/realms/x',
      oidcClientId: 'console',
    });
  });

  it.each([
    [{ OIDC_ISSUER: 'not a url' }, false, 'OIDC_ISSUER must be an absolute http(s) URL'],
    [{ OIDC_ISSUER: 'ftp://idp.example.com' }, false, 'OIDC_ISSUER must be an http(s) URL'],
    [{ OIDC_ISSUER: 'http://idp.example.com' }, true, 'OIDC_ISSUER must be https when NODE_ENV=production'],
    [{ OIDC_ISSUER: 'https://idp.example.com/?a=1' }, false, 'OIDC_ISSUER must have no query or fragment'],
    [{ OIDC_CLIENT_ID: 'two words' }, false, 'OIDC_CLIENT_ID must be 1 to 255 printable ASCII characters'],
  ])('refuses %j (production %s)', (env, production, message) => {
    expect(() => loadConsoleConfig(env, production)).toThrow(message);
  });
});
