import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/infrastructure/config/config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      databaseUrl: null,
      dataDir: path.resolve('.data'),
      maxKeysPerUser: 100,
      jwt: { jwksUri: null, issuer: null, audience: null, adminRole: 'admin' },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u:p@db:5432/keygate',
      DATA_DIR: '/var/lib/keygate',
      JWT_JWKS_URI: 'https://idp/jwks',
      JWT_ISSUER: 'https://idp/',
      JWT_AUDIENCE: 'keygate',
      JWT_ADMIN_ROLE: 'platform-admin',
      MAX_KEYS_PER_USER: '7',
    });
    expect(config).toMatchObject({
      port: 9000,
      databaseUrl: 'postgres://u:p@db:5432/keygate',
      dataDir: '/var/lib/keygate',
      maxKeysPerUser: 7,
      jwt: { jwksUri: 'https://idp/jwks', issuer: 'https://idp/', audience: 'keygate', adminRole: 'platform-admin' },
    });
  });

  it('refuses production without an identity provider', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_JWKS_URI is required/);
    expect(loadConfig({ NODE_ENV: 'production', JWT_JWKS_URI: 'https://idp/jwks' }).jwt.jwksUri).toBe('https://idp/jwks');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['MAX_KEYS_PER_USER', '0'],
    ['MAX_KEYS_PER_USER', '1.5'],
    ['DATABASE_URL', 'mysql://db/keygate'],
  ])('rejects %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
