import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { DEV_ISSUER, DEV_JWKS_PATH, DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';
import { JwksAccessTokenVerifier } from '../../adapters/auth/jwks-access-token-verifier';
import { JwksKeySet } from '../../adapters/auth/jwks-key-set';
import { jwksLoader } from '../../adapters/auth/jwks-loader';
import { ReadinessCheck } from '../../adapters/http/controllers/health.controller';
import { AuthFailureLimiter } from '../../adapters/http/middleware/auth-failure-limiter';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * A provider's JWKS is a few keys in a few KiB. Made-up kids cause one fetch
 * per 10 s at most; a set older than 10 minutes is refreshed in the
 * background. Wall-clock time (not TOKENS.Clock): this paces network calls.
 */
const JWKS = { timeoutMs: 5_000, maxBytes: 256 * 1024, maxKeys: 50, refetchIntervalMs: 10_000, maxAgeMs: 10 * 60_000 };

/**
 * What only the HTTP edge uses: the verifier of users' access tokens (the
 * identity provider's JWKS, or with JWT_JWKS_URI unset the development
 * issuer's, served by this process on `port`), the /mcp auth failure limiter
 * and the /readyz check.
 */
export function bindHttpEdge(c: Container, port: number | undefined): void {
  c.bind<DevTokenIssuer | null>(TOKENS.DevTokenIssuer).toResolvedValue(
    ({ jwt, dataDir }: Config) => (jwt.jwksUri ? null : DevTokenIssuer.loadOrCreate(dataDir, jwt.maxLifetimeSeconds)),
    [TOKENS.Config],
  );
  // By its class too: /mcp's access tokens are checked against the same JWKS and key set (mcp-oauth.bindings.ts).
  c.bind(JwksAccessTokenVerifier).toResolvedValue(
    ({ jwt }: Config, logger: Logger) => {
      const { timeoutMs, maxBytes, maxKeys, refetchIntervalMs, maxAgeMs } = JWKS;
      const keys = new JwksKeySet({
        load: jwksLoader(jwt.jwksUri ?? devJwksUri(port), { timeoutMs, maxBytes, maxKeys }),
        refetchIntervalMs,
        maxAgeMs,
        now: Date.now,
        warn: (message, error) => logger.warn({ err: error }, message),
      });
      const claims = jwt.jwksUri ? jwt : { issuer: DEV_ISSUER, audience: null, adminRole: jwt.adminRole, maxLifetimeSeconds: jwt.maxLifetimeSeconds };
      return new JwksAccessTokenVerifier(claims, keys);
    },
    [TOKENS.Config, TOKENS.Logger],
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
