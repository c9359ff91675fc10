import express, { Express, RequestHandler } from 'express';
import helmet from 'helmet';
import { Container } from 'inversify';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { apiReferenceRouter } from '../../adapters/http/controllers/api-reference.router';
import { openApiDocument } from '../../adapters/http/openapi/openapi-document';
import { AgentRolesController } from '../../adapters/http/controllers/agent-roles.controller';
import { ToolRulesController } from '../../adapters/http/controllers/tool-rules.controller';
import { ExplainController } from '../../adapters/http/controllers/explain.controller';
import { ApprovalsController } from '../../adapters/http/controllers/approvals.controller';
import { UsageController } from '../../adapters/http/controllers/usage.controller';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
import { AuditEventsController } from '../../adapters/http/controllers/audit-events.controller';
import { McpServersController } from '../../adapters/http/controllers/mcp-servers.controller';
import { ModeSessionsController } from '../../adapters/http/controllers/mode-sessions.controller';
import { ModeToolConfigsController } from '../../adapters/http/controllers/mode-tool-configs.controller';
import { ToolSetsController } from '../../adapters/http/controllers/tool-sets.controller';
import { ForwardAuthController } from '../../adapters/http/controllers/forward-auth.controller';
import { INTROSPECTION_PATH, IntrospectionController } from '../../adapters/http/controllers/introspection.controller';
import { accessTokenAuth } from '../../adapters/edge/access-token-auth';
import { healthRouter, ReadinessCheck } from '../../adapters/http/controllers/health.controller';
import { metricsRouter } from '../../adapters/http/controllers/metrics.router';
import { authFailureLimit } from '../../adapters/http/middleware/auth-failure-limit';
import { AuthFailureLimiter } from '../../adapters/http/middleware/auth-failure-limiter';
import { httpMetrics } from '../../adapters/http/middleware/http-metrics';
import { logOf, requestLogging } from '../../adapters/edge/request-logging';
import { trackRoutePatterns } from '../../adapters/edge/route-pattern';
import { errorHandler, notFoundHandler } from '../../adapters/edge/error-map';
import { McpController } from '../../adapters/mcp/mcp.controller';
import { CachedKeyCheck } from '../../adapters/persistence/hot-path/cached-key-check';
import { Tracing } from '../../adapters/observability/tracing';
import { Metrics } from '../../adapters/observability/metrics';
import { Config } from '../config/config';
import { Logger } from '../logging/logger';
import { TOKENS } from '../di/tokens';
import { literalPath, onePlainSegment, serveHotPosts } from './hot-post-routes';

export interface AppExtras {
  /** Routes mounted before the API, e.g. the development issuer's JWKS. */
  before?: RequestHandler[];
  /** Default: the container's logger (JSON lines on stdout at LOG_LEVEL). Tests pass a silent or a capturing one. */
  logger?: Logger;
}

export function createApp(container: Container, extras: AppExtras = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const { ops } = container.get<Config>(TOKENS.Config);
  app.set('trust proxy', ops.trustProxy);
  const metrics = container.get<Metrics>(TOKENS.Metrics);
  trackRoutePatterns(app);
  const everyRequest = [requestLogging(app, extras.logger ?? container.get<Logger>(TOKENS.Logger)), httpMetrics(metrics)];
  app.use(...everyRequest);
  // /mcp is the hot path: mounted first, so its requests skip every other layer.
  const failureLimit = authFailureLimit(container.get(AuthFailureLimiter), container.get(CachedKeyCheck).validates);
  const posts = container.get(McpController).mount(app, failureLimit);
  // Forward auth is /mcp's key check for other services' proxies: as hot, so mounted next, with the same limiter.
  container.get(ForwardAuthController).mount(app, failureLimit);
  app.use(metricsRouter(metrics));
  app.use(healthRouter(container.get<ReadinessCheck>(TOKENS.ReadinessCheck)));
  app.use(container.get<RequestHandler>(TOKENS.ProtectedResourceRoutes));
  app.use(container.get<RequestHandler>(TOKENS.ClientMetadataRoutes));
  for (const handler of extras.before ?? []) app.use(handler);
  app.use('/api/v1', helmet());
  // Express answers OPTIONS on a mounted path itself (200 and Allow); the API documents no OPTIONS, so it is an unknown route like any other method.
  app.use(['/api/v1', INTROSPECTION_PATH], (req, res, next) => (req.method === 'OPTIONS' ? notFoundHandler(req, res, next) : next()));
  // Public: the document and its viewer need no JWT.
  app.use(apiReferenceRouter(openApiDocument));
  const user = accessTokenAuth(container.get<AccessTokenVerifier>(TOKENS.AccessTokenVerifier));
  const explain = container.get(ExplainController);
  app.use('/api/v1/api-keys', user, explain.keyTools(), container.get(ApiKeysController).router());
  app.use('/api/v1/authz', user, explain.explain());
  app.use('/api/v1/agent-roles', user, container.get(AgentRolesController).router());
  app.use('/api/v1/mode-tool-configs', user, container.get(ModeToolConfigsController).router());
  app.use('/api/v1/mode-sessions', user, container.get(ModeSessionsController).router());
  app.use('/api/v1/tool-sets', user, container.get(ToolSetsController).toolSets());
  app.use('/api/v1/scopes', user, container.get(ToolSetsController).scopes());
  app.use('/api/v1/audit-events', user, container.get(AuditEventsController).router());
  app.use('/api/v1/mcp-servers', user, container.get(McpServersController).router());
  app.use('/api/v1/tool-rules', user, container.get(ToolRulesController).router());
  app.use('/api/v1/approvals', user, container.get(ApprovalsController).router());
  app.use('/api/v1/usage', user, container.get(UsageController).router());
  // Not behind the users' JWT: a leak report is authenticated by its signature.
  app.use('/api/v1/secret-scanning', container.get<RequestHandler>(TOKENS.SecretScanningRoutes));
  app.use(INTROSPECTION_PATH, helmet(), user, container.get(IntrospectionController).router());
  const onError = errorHandler((error, req) => logOf(req).error({ err: error }, 'request failed'));
  app.use(notFoundHandler);
  app.use(onError);
  // With tracing on, Express's instrumentation names the route from its router: the router serves /mcp too.
  if (!container.get<Tracing>(TOKENS.Tracing).on) {
    serveHotPosts(app, {
      before: everyRequest,
      routes: [
        { pattern: '/mcp', match: literalPath('/mcp'), handlers: posts.mcp },
        { pattern: '/mcp/servers/:name', match: onePlainSegment('/mcp/servers/', 'name'), handlers: posts.servers },
      ],
      notFound: notFoundHandler,
      onError,
    });
  }
  return app;
}
