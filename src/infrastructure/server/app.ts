import express, { Express, RequestHandler } from 'express';
import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { AccessTokenVerifier } from '../../adapters/auth/access-token-verifier';
import { ApiKeysController } from '../../adapters/http/controllers/api-keys.controller';
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
  app.use('/api/v1/api-keys', container.get(ApiKeysController).router(container.get<AccessTokenVerifier>(TOKENS.AccessTokenVerifier)));
  app.use(container.get(McpController).router());
  app.use(notFoundHandler);
  app.use(errorHandler(extras.logError ?? ((error) => console.error(error))));
  return app;
}
