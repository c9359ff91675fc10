import { NO_TRACING, Tracing } from '../../adapters/observability/tracing';
import { tracingEnabled } from '../config/tracing-config';

/**
 * The entry point. OpenTelemetry's instrumentations patch http, express and pg
 * as they are required, so tracing starts before start.ts (which requires
 * them) is loaded: hence require, not a hoisted import. With tracing off,
 * nothing of OpenTelemetry is loaded (but the no-op API prom-client requires).
 */
function startTracing(): Tracing {
  if (!tracingEnabled()) return NO_TRACING;
  type OtelTracing = typeof import('../../adapters/observability/otel-tracing');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startOtelTracing } = require('../../adapters/observability/otel-tracing') as OtelTracing;
  return startOtelTracing();
}

const tracing = startTracing();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { start } = require('./start') as typeof import('./start');
start(tracing).catch((error: unknown) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ConfigError } = require('../config/config') as typeof import('../config/config');
  process.stderr.write(
    `keygate failed to start: ${error instanceof ConfigError ? error.message : ((error as Error)?.stack ?? String(error))}\n`,
  );
  process.exit(1);
});
