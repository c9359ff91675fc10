import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { DEV_ISSUER, DEV_JWKS_PATH, DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';
import { JwksAccessTokenVerifier } from '../../adapters/auth/jwks-access-token-verifier';
import { ReadinessCheck } from '../../adapters/http/controllers/health.controller';
import { AuthFailureLimiter } from '../../adapters/http/middleware/auth-failure-limiter';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * What only the HTTP edge uses: the verifier of users' access tokens (the
 * identity provider's JWKS, or with JWT_JWKS_URI unset the development
 * issuer's, served by this process on `port`), the /mcp auth failure limiter
 * and the /readyz check.
 */
export function bindHttpEdge(c: Container, port: number | undefined): void {
  c.bind<DevTokenIssuer | null>(TOKENS.DevTokenIssuer).toResolvedValue(
    ({ jwt, dataDir }: Config) => (jwt.jwksUri ? null : DevTokenIssuer.loadOrCreate(dataDir)),
    [TOKENS.Config],
  );
  // By its class too: /mcp's access tokens are checked against the same JWKS and key cache (mcp-oauth.bindings.ts).
  c.bind(JwksAccessTokenVerifier).toResolvedValue(
    ({ jwt }: Config) =>
      new JwksAccessTokenVerifier(
        jwt.jwksUri
          ? { ...jwt, jwksUri: jwt.jwksUri }
          : { jwksUri: devJwksUri(port), issuer: DEV_ISSUER, audience: null, adminRole: jwt.adminRole },
      ),
    [TOKENS.Config],
  );
  c.bind<AccessTokenVerifier>(TOKENS.AccessTokenVerifier).toService(JwksAccessTokenVerifier);
  c.bind(AuthFailureLimiter).toResolvedValue(
    ({ ops }: Config) => new AuthFailureLimiter({ limit: ops.authFailureLimit, windowSeconds: ops.authFailureWindowSeconds }),
    [TOKENS.Config],
  );
  c.bind<ReadinessCheck>(TOKENS.ReadinessCheck).toResolvedValue(
    (dataSource: DataSource) => async () => void (await dataSource.query('SELECT 1')),
    [TOKENS.DataSource],
  );
}

function devJwksUri(port: number | undefined): string {
  if (port === undefined) throw new Error('JWT_JWKS_URI is unset and no port was given to serve the development issuer\'s JWKS from');
  return `http://127.0.0.1:${port}${DEV_JWKS_PATH}`;
}
