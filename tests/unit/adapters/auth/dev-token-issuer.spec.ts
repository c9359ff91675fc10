import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { DevTokenIssuer } from '../../../../src/adapters/auth/dev-token-issuer';
import { devBanner } from '../../../../src/infrastructure/server/dev-identity';

describe('DevTokenIssuer within JWT_MAX_LIFETIME_SECONDS', () => {
  let dataDir: string;
  beforeAll(() => (dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-dev-issuer-'))));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const lifetimeOf = (token: string) => {
    const claims = jwt.decode(token) as { iat: number; exp: number };
    return claims.exp - claims.iat;
  };

  it("mints 24 h by default, or the service's shorter limit", () => {
    expect(lifetimeOf(DevTokenIssuer.loadOrCreate(dataDir, 86_400).mint({ sub: 'u' }))).toBe(86_400);
    expect(lifetimeOf(DevTokenIssuer.loadOrCreate(dataDir, 3_600).mint({ sub: 'u' }))).toBe(3_600);
  });

  it('refuses a lifetime the service would refuse, naming the variable', () => {
    const issuer = DevTokenIssuer.loadOrCreate(dataDir, 3_600);
    expect(() => issuer.mint({ sub: 'u', ttlSeconds: 3_601 })).toThrow(/between 1 and 3600 seconds \(JWT_MAX_LIFETIME_SECONDS\)/);
    expect(() => issuer.mint({ sub: 'u', ttlSeconds: 0 })).toThrow(RangeError);
    expect(lifetimeOf(issuer.mint({ sub: 'u', ttlSeconds: 600 }))).toBe(600);
  });

  it("tells the banner token's real lifetime", () => {
    const banner = devBanner(DevTokenIssuer.loadOrCreate(dataDir, 1_800), dataDir, 'http://localhost:3000', 'admin');
    expect(banner).toContain('Access token, valid 30 min:');
    expect(lifetimeOf(/export TOKEN=(\S+)/.exec(banner)![1])).toBe(1_800);
  });
});
