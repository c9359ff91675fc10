import { RequestHandler, Router } from 'express';
import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { ApiKeyRepository } from '../../application/ports/api-key-repository.port';
import { Clock } from '../../application/ports/clock.port';
import { KeyHasher } from '../../application/ports/key-hasher.port';
import { AuthorizeForwardedMcpRequest } from '../../application/use-cases/forward-auth/authorize-forwarded-mcp-request.use-case';
import { AuthorizeForwardedRequest } from '../../application/use-cases/forward-auth/authorize-forwarded-request.use-case';
import { ToolPins } from '../../application/use-cases/gateway/external/tool-pins';
import { AuthorizeToolCall } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { FindServerView } from '../../application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { IntrospectKey } from '../../application/use-cases/introspect-key/introspect-key.use-case';
import { ValidateKey } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { DEV_ISSUER, DEV_JWKS_PATH, DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';
import { JwksAccessTokenVerifier } from '../../adapters/auth/jwks-access-token-verifier';
import { JwksKeySet } from '../../adapters/auth/jwks-key-set';
import { jwksLoader } from '../../adapters/auth/jwks-loader';
import { McpAccessTokenVerifier } from '../../adapters/auth/mcp-access-token-verifier';
import { UsageGate } from '../../adapters/edge/usage-gate';
import { ForwardAuthController } from '../../adapters/http/controllers/forward-auth.controller';
import { ReadinessCheck, ShuttingDown } from '../../adapters/http/controllers/health.controller';
import { Draining } from '../server/draining';
import { IntrospectionController } from '../../adapters/http/controllers/introspection.controller';
import { AuthFailureLimiter } from '../../adapters/http/middleware/auth-failure-limiter';
import { McpOAuth } from '../../adapters/mcp/oauth/mcp-oauth';
import { protectedResourceRoutes } from '../../adapters/mcp/oauth/protected-resource';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * The HTTP edge beside the controllers: access-token verification, the
 * failed-auth limiter and /readyz, OAuth on /mcp (protected resource
 * metadata), and forward auth with key introspection for other proxies.
 */
export function bindHttpEdge(c: Container, port: number | undefined): void {
  bindAccessTokens(c, port);
  bindMcpOAuth(c);
  bindForwardAuth(c);
}

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
function bindAccessTokens(c: Container, port: number | undefined): void {
  c.bind<DevTokenIssuer | null>(TOKENS.DevTokenIssuer).toResolvedValue(
    ({ jwt, dataDir }: Config) => (jwt.jwksUri ? null : DevTokenIssuer.loadOrCreate(dataDir, jwt.maxLifetimeSeconds)),
    [TOKENS.Config],
  );
  // By its class too: /mcp's access tokens are checked against the same JWKS and key set (bindMcpOAuth below).
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
      const claims = jwt.jwksUri
        ? jwt
        : { issuer: DEV_ISSUER, audience: null, adminRole: jwt.adminRole, maxLifetimeSeconds: jwt.maxLifetimeSeconds };
      return new JwksAccessTokenVerifier(claims, keys);
    },
    [TOKENS.Config, TOKENS.Logger],
  );
  c.bind<AccessTokenVerifier>(TOKENS.AccessTokenVerifier).toService(JwksAccessTokenVerifier);
  c.bind(AuthFailureLimiter).toResolvedValue(
    ({ ops }: Config) => new AuthFailureLimiter({ limit: ops.authFailureLimit, windowSeconds: ops.authFailureWindowSeconds }),
    [TOKENS.Config],
  );
  c.bind(Draining).toConstantValue(new Draining());
  c.bind<ReadinessCheck>(TOKENS.ReadinessCheck).toResolvedValue(
    (dataSource: DataSource, draining: Draining) => async () => {
      if (draining.started) throw new ShuttingDown();
      await dataSource.query('SELECT 1');
    },
    [TOKENS.DataSource, Draining],
  );
}

function devJwksUri(port: number | undefined): string {
  if (port === undefined) throw new Error("JWT_JWKS_URI is unset and no port was given to serve the development issuer's JWKS from");
  return `http://127.0.0.1:${port}${DEV_JWKS_PATH}`;
}

/**
 * /mcp as an OAuth protected resource, only with MCP_RESOURCE_URL and
 * MCP_AUTHORIZATION_SERVERS: McpOAuth is bound then alone (the controller
 * takes it when present), and the metadata route is an empty router otherwise.
 */
function bindMcpOAuth(c: Container): void {
  const { oauth } = c.get<Config>(TOKENS.Config).mcp;
  if (oauth === null) {
    c.bind<RequestHandler>(TOKENS.ProtectedResourceRoutes).toConstantValue(Router());
    return;
  }
  c.bind(McpOAuth).toResolvedValue(
    (validate: ValidateKey, jwks: JwksAccessTokenVerifier) =>
      new McpOAuth(validate, new McpAccessTokenVerifier(jwks, oauth), oauth.resourceUrl),
    [ValidateKey, JwksAccessTokenVerifier],
  );
  c.bind<RequestHandler>(TOKENS.ProtectedResourceRoutes).toConstantValue(protectedResourceRoutes(oauth));
}

/**
 * Keys checked for other services: /authz (on /mcp's ValidateKey, key cache
 * and usage gate, so a proxy sees exactly what /mcp would) and RFC 7662
 * introspection. IntrospectKey reads through the same cached repository but
 * never touches last_used_at.
 */
function bindForwardAuth(c: Container): void {
  c.bind(AuthorizeForwardedRequest).toConstantValue(new AuthorizeForwardedRequest());
  // With ?server=, the same view and tool gate as /mcp/servers/<server>, and its pins.
  c.bind(AuthorizeForwardedMcpRequest).toResolvedValue(
    (views: FindServerView, tools: AuthorizeToolCall, pins: ToolPins) => new AuthorizeForwardedMcpRequest(views, tools, pins),
    [FindServerView, AuthorizeToolCall, ToolPins],
  );
  c.bind(ForwardAuthController).toResolvedValue(
    (validate: ValidateKey, usage: UsageGate, authorize: AuthorizeForwardedRequest, authorizeMcp: AuthorizeForwardedMcpRequest) =>
      new ForwardAuthController(validate, usage, authorize, authorizeMcp),
    [ValidateKey, UsageGate, AuthorizeForwardedRequest, AuthorizeForwardedMcpRequest],
  );
  c.bind(IntrospectKey).toResolvedValue(
    (keys: ApiKeyRepository, hasher: KeyHasher, clock: Clock) => new IntrospectKey(keys, hasher, clock),
    [TOKENS.ApiKeyRepository, TOKENS.KeyHasher, TOKENS.Clock],
  );
  c.bind(IntrospectionController).toResolvedValue((introspect: IntrospectKey) => new IntrospectionController(introspect), [IntrospectKey]);
}
