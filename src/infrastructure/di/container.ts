import 'reflect-metadata';
import { Container } from 'inversify';
import { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { Clock } from '../../application/ports/clock.port';
import { SystemClock } from '../../adapters/crypto/system-clock';
import { Metrics } from '../../adapters/observability/metrics';
import { NO_TRACING, Tracing } from '../../adapters/observability/tracing';
import { AuditRetention } from '../../adapters/persistence/audit/audit-retention';
import { UsageRetention } from '../../adapters/persistence/tool-usage/usage-retention';
import { UsageFlusher } from '../../application/use-cases/usage/usage-flusher';
import { GroupCommitAuditQueue } from '../../adapters/persistence/audit/group-commit-audit-queue';
import { ChangeListener } from '../../adapters/persistence/hot-path/change-listener';
import { LastUsedCoalescer } from '../../adapters/persistence/hot-path/last-used-coalescer';
import { SessionStreams } from '../../adapters/mcp/sessions/session-streams';
import { SessionPurge } from '../../adapters/persistence/mcp-sessions/session-purge';
import { ToolChangeWatcher } from '../../adapters/persistence/mcp-sessions/tool-change-watcher';
import { PostgresUsageBudget } from '../../adapters/persistence/usage/postgres-usage-budget';
import { Config } from '../config/config';
import { Database } from '../database/database';
import { createLogger } from '../logging/logger';
import { bindAuditAndUsage } from './audit-usage.module';
import { bindExplain } from './explain.module';
import { bindApprovals } from './approvals.module';
import { bindToolUsage } from './tool-usage.module';
import { bindGatewaySessions } from './gateway-sessions.module';
import { bindGateway } from './gateway.module';
import { bindHttpEdge } from './http-edge.module';
import { bindKeys } from './keys.module';
import { Lifecycle } from './lifecycle';
import { bindScopeContexts } from './scope-contexts.module';
import { TOKENS } from './tokens';
import { bindUpstreamAuthorization } from './upstream-authorization.module';

export interface ContainerParts {
  config: Config;
  /** The pool, and how this entry point closes it: the Lifecycle's last stop. */
  database: Database;
  /** The port this process listens on: with JWT_JWKS_URI unset, the development issuer's JWKS is read from it. */
  port?: number;
  /** Node's own series (heap, event loop) on /metrics: the service only, not one per test app. */
  processMetrics?: boolean;
  /** Where adapters report what they survive (an upstream that failed); LOG_LEVEL's logger when absent. */
  logger?: Logger;
  /** Tests pin time; everything else uses the system clock. */
  clock?: Clock;
  /** OpenTelemetry, when main.ts started it; NO_TRACING otherwise. */
  tracing?: Tracing;
}

/**
 * The composition root: the only place that builds adapters and use-cases and
 * knows which adapter serves which port. Classes carry no decorators; each is
 * built by a factory from its tokens, once, when something first asks for it,
 * so an internal job builds neither the HTTP edge nor the upstream MCP client.
 * The *.module.ts files beside this one are its parts, one per area (keys,
 * scope contexts, audit and usage, the gateway and its sessions, the HTTP
 * edge), each a plain function that binds its area; entry points
 * (main.ts, openKeygate, the tests' app) take what they need from the
 * container, and start and stop its Lifecycle.
 */
export function buildContainer(parts: ContainerParts): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind<Config>(TOKENS.Config).toConstantValue(parts.config);
  c.bind<Database>(TOKENS.Database).toConstantValue(parts.database);
  c.bind<DataSource>(TOKENS.DataSource).toConstantValue(parts.database.dataSource);
  c.bind<Clock>(TOKENS.Clock).toConstantValue(parts.clock ?? new SystemClock());
  c.bind<Metrics>(TOKENS.Metrics).toResolvedValue(() => new Metrics({ processMetrics: parts.processMetrics }));
  c.bind<Tracing>(TOKENS.Tracing).toConstantValue(parts.tracing ?? NO_TRACING);
  c.bind<Logger>(TOKENS.Logger).toResolvedValue(() => parts.logger ?? createLogger(parts.config.ops.logLevel));
  bindKeys(c, parts.config);
  bindAuditAndUsage(c);
  bindScopeContexts(c);
  bindGatewaySessions(c);
  bindGateway(c);
  bindUpstreamAuthorization(c);
  bindExplain(c);
  bindApprovals(c);
  bindToolUsage(c);
  bindHttpEdge(c, parts.port);
  // Started in this order, stopped in the reverse: usage and audit retention, the MCP session streams and purge, the listener, the quota credits handed back, the last last_used_at batch,
  // the usage counts and the audit events still to write, then the pool.
  c.bind(Lifecycle).toResolvedValue(
    (
      database: Database,
      lastUsed: LastUsedCoalescer,
      listener: ChangeListener,
      audit: GroupCommitAuditQueue,
      retention: AuditRetention,
      usage: PostgresUsageBudget,
      purge: SessionPurge,
      streams: SessionStreams,
      toolChanges: ToolChangeWatcher,
      usageFlusher: UsageFlusher,
      usageRetention: UsageRetention,
    ) =>
      new Lifecycle([
        { name: 'database pool', stop: () => database.close() },
        { name: 'audit event writer', stop: () => audit.stop() },
        // Stopped before the pool: what is counted since the last flush is written then.
        { name: 'tool usage flusher', start: () => usageFlusher.start(), stop: () => usageFlusher.stop() },
        { name: 'last_used_at writer', start: () => lastUsed.start(), stop: () => lastUsed.stop() },
        { name: 'usage budget (quota leases, rate windows)', start: () => usage.start(), stop: () => usage.stop() },
        // Always on: besides the caches, the quota leases hear of balance changes through it.
        // What it heard last is announced before the pool closes.
        {
          name: 'change listener',
          start: () => listener.start(),
          stop: async () => {
            await listener.stop();
            await toolChanges.settled();
          },
        },
        {
          name: 'MCP sessions (purge, open streams)',
          start: () => purge.start(),
          stop: async () => {
            streams.closeAll();
            await purge.stop();
          },
        },
        { name: 'audit retention', start: () => retention.start(), stop: () => retention.stop() },
        { name: 'usage retention', start: () => usageRetention.start(), stop: () => usageRetention.stop() },
      ]),
    [
      TOKENS.Database,
      LastUsedCoalescer,
      ChangeListener,
      GroupCommitAuditQueue,
      AuditRetention,
      PostgresUsageBudget,
      SessionPurge,
      SessionStreams,
      ToolChangeWatcher,
      UsageFlusher,
      UsageRetention,
    ],
  );
  return c;
}
