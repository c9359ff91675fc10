import { AddressInfo } from 'node:net';
import express, { RequestHandler } from 'express';
import { DEV_JWKS_PATH, DevTokenIssuer } from '../../adapters/auth/dev-token-issuer';
import { StoredSecrets } from '../../adapters/persistence/stored-secrets';
import { loadConfig } from '../config/config';
import { withSecretsKey } from '../config/secrets-key';
import { loadConsoleConfig } from '../config/console-config';
import { openDatabase } from '../database/database';
import { buildContainer } from '../di/container';
import { Lifecycle } from '../di/lifecycle';
import { SessionStreams } from '../../adapters/mcp/sessions/session-streams';
import { ListenStreams } from '../../adapters/mcp/modern/listen-streams';
import { TOKENS } from '../di/tokens';
import { createLogger } from '../logging/logger';
import { createApp } from './app';
import { consoleRoutes } from './console-routes';
import { devBanner } from './dev-identity';
import { Draining } from './draining';
import { onShutdown } from './graceful-shutdown';
import { heapBudgetWarning } from './heap-budget';
import { createHttpServer } from './http-server';
import { Tracing } from '../../adapters/observability/tracing';

/** The service, once main.ts started tracing (or not): everything express, pg and http is required from here. */
export async function start(tracing: Tracing): Promise<void> {
  const config = withSecretsKey(loadConfig());
  const consoleConfig = loadConsoleConfig(process.env, config.env === 'production');
  const logger = createLogger(config.ops.logLevel);
  // Start-up and shutdown lines are written at any level but silent (scripts wait for "listening on");
  // LOG_LEVEL=warn quiets the per-request lines only.
  const startUp = logger.child({}, { level: config.ops.logLevel === 'silent' ? 'silent' : 'info' });
  const log = (line: string) => startUp.info(line);
  const heapWarning = heapBudgetWarning(config.hotPath.keyCacheEntries);
  if (heapWarning) startUp.warn(heapWarning);
  const database = await openDatabase(config, log);
  const { server, serve } = createHttpServer(config.ops);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://localhost:${port}`;

  const container = buildContainer({ config, database, port, processMetrics: true, logger, tracing });
  const lifecycle = container.get(Lifecycle);
  await lifecycle.start();
  // Rows written before encryption existed, or bound to owner and name only, are encrypted and bound to their record
  // before the first request, each under the key it was under; values under SECRETS_KEY_PREVIOUS stay there for
  // `npm run secrets:rotate`, so replicas still on the old key keep reading them.
  const { changed, unreadable } = await container.get(StoredSecrets).reseal('upgrade');
  if (changed > 0) log(`encrypted the stored header values of ${changed} MCP servers, each bound to its record`);
  for (const { id, reason } of unreadable)
    log(`MCP server ${id}: its stored header values do not decrypt (${reason}); its tools are withheld until its owner sets them again`);
  const dev = container.get<DevTokenIssuer | null>(TOKENS.DevTokenIssuer);
  const before: RequestHandler[] = dev ? [express.Router().get(DEV_JWKS_PATH, (_req, res) => void res.json(dev.jwks()))] : [];
  before.push(...consoleRoutes(config, consoleConfig, dev));
  serve(createApp(container, { before, logger }));
  // The banner is for the person at the terminal: plain text, not a log line.
  if (dev) process.stdout.write(`${devBanner(dev, config.dataDir, baseUrl, config.jwt.adminRole)}\n`);
  log(`keygate listening on ${baseUrl}`);

  const streams = container.get(SessionStreams);
  const listens = container.get(ListenStreams);
  const draining = container.get(Draining);
  // A 2026 listen stream ends with its listen's result, which tells the client the end was meant.
  const shutdown = onShutdown(
    server,
    // The spans still buffered are exported once the last request ended.
    [...lifecycle.stopSteps(), { name: 'traces', run: () => tracing.shutdown() }],
    (message, error) => log(error ? `${message}: ${(error as Error)?.message ?? error}` : message),
    undefined,
    () => (draining.start(), streams.closeAll(), listens.closeAll()),
  );
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
