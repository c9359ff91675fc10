import express, { Express, RequestHandler } from 'express';
import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { AgentRolesController } from '../../adapters/http/controllers/agent-roles.controller';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
import { ModeSessionsController } from '../../adapters/http/controllers/mode-sessions.controller';
import { ModeToolConfigsController } from '../../adapters/http/controllers/mode-tool-configs.controller';
import { ToolSetsController } from '../../adapters/http/controllers/tool-sets.controller';
import { accessTokenAuth } from '../../adapters/http/middleware/access-token-auth';
import { healthRouter } from '../../adapters/http/controllers/health.controller';
import { errorHandler, notFoundHandler } from '../../adapters/http/error-map';
import { McpController } from '../../adapters/mcp/mcp.controller';
import { TOKENS } from '../di/tokens';

export interface AppExtras {
  /** Routes mounted before the API, e.g. the development issuer's JWKS. */
  before?: RequestHandler[];
  logError?: (error: unknown) => void;
}

export function createApp(container: Container, extras: AppExtras = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const dataSource = container.get<DataSource>(TOKENS.DataSource);
  app.use(healthRouter(async () => void (await dataSource.query('SELECT 1'))));
  for (const handler of extras.before ?? []) app.use(handler);
  const user = accessTokenAuth(container.get<AccessTokenVerifier>(TOKENS.AccessTokenVerifier));
  app.use('/api/v1/api-keys', user, container.get(ApiKeysController).router());
  app.use('/api/v1/agent-roles', user, container.get(AgentRolesController).router());
  app.use('/api/v1/mode-tool-configs', user, container.get(ModeToolConfigsController).router());
  app.use('/api/v1/mode-sessions', user, container.get(ModeSessionsController).router());
  app.use('/api/v1/tool-sets', user, container.get(ToolSetsController).toolSets());
  app.use('/api/v1/scopes', user, container.get(ToolSetsController).scopes());
  app.use(container.get(McpController).router());
  app.use(notFoundHandler);
  app.use(errorHandler(extras.logError ?? ((error) => console.error(error))));
  return app;
}
