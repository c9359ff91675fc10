import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';

/** The one user the development issuer mints a start-up token for, stable across restarts. */
export function devUserId(dataDir: string): string {
  const file = path.join(dataDir, 'dev-user-id');
  if (!existsSync(file)) writeFileSync(file, randomUUID() + '\n');
  return readFileSync(file, 'utf8').trim();
}

export function devBanner(issuer: DevTokenIssuer, dataDir: string, baseUrl: string, adminRole: string): string {
  const sub = devUserId(dataDir);
  const token = issuer.mint({ sub, admin: true, adminRole });
  return [
    '',
    'Development identity provider active (JWT_JWKS_URI is unset).',
    `User ${sub} (admin). Access token, valid ${lifetimeText(issuer.defaultTtlSeconds)}:`,
    '',
    `export TOKEN=${token}`,
    '',
    `Try: curl -s -X POST ${baseUrl}/api/v1/api-keys -H "Authorization: Bearer $TOKEN" \\`,
    `       -H 'Content-Type: application/json' -d '{"name":"my first key","scopes":["projects:read"]}'`,
    'More tokens: npm run token -- --sub <uuid> [--admin]',
    '',
  ].join('\n');
}

function lifetimeText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
