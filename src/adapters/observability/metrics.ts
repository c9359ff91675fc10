import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { ResponseMetrics } from './response-metrics';
import { TallyCounter } from './tally-counter';
import { ToolCallMetrics } from './tool-call-metrics';

export type KeyValidationOutcome = 'valid' | 'invalid' | 'error';

const PREFIX = 'keygate_';

/**
 * Every Prometheus series of the service, on one registry per instance (not
 * prom-client's global one), so several apps in one test process do not
 * collide. Other adapters register their own counters on `registry` or use the
 * named ones below.
 */
export class Metrics {
  readonly registry = new Registry();

  private readonly responses = new ResponseMetrics();

  readonly keyValidations = new TallyCounter<KeyValidationOutcome>(this.registry, {
    name: `${PREFIX}key_validations_total`,
    help: 'API key validations on /mcp and /authz by outcome: valid, invalid (missing, unknown, revoked, expired) or error',
    label: 'outcome',
    values: ['valid', 'invalid', 'error'],
  });

  /** Incremented by the validation cache. */
  readonly keyCacheLookups = new TallyCounter<'hit' | 'miss'>(this.registry, {
    name: `${PREFIX}key_cache_lookups_total`,
    help: 'Validation cache lookups by result: hit or miss',
    label: 'result',
    values: ['hit', 'miss'],
  });

  /** Incremented by the last_used_at write coalescer, once per batch written. */
  readonly lastUsedFlushBatches = new Counter({
    name: `${PREFIX}last_used_flush_batches_total`,
    help: 'Batches of coalesced last_used_at updates written to the database',
    registers: [this.registry],
  });

  /** Incremented by the audit queue as it writes tool-call events. */
  readonly auditEventsWritten = new Counter({
    name: `${PREFIX}audit_events_written_total`,
    help: 'Audit events written by the batching audit queue',
    registers: [this.registry],
  });

  /** overflow: the queue was full while PostgreSQL was away; rejected: PostgreSQL refused the event itself. */
  readonly auditEventsDropped = new Counter({
    name: `${PREFIX}audit_events_dropped_total`,
    help: 'Audit events the batching audit queue dropped, by reason: overflow or rejected',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Requests on /mcp and /authz refused because their key went past its rate limit. */
  readonly rateLimited = new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: 'Requests on /mcp and /authz refused with 429 because the key went past its rate limit',
    registers: [this.registry],
  });

  /** POSTs on /mcp whose tool calls were refused because the key's quota had no credit left. */
  readonly quotaExhausted = new Counter({
    name: `${PREFIX}quota_exhausted_total`,
    help: "POSTs on /mcp refused with 429 because the key's quota could not pay for their tool calls",
    registers: [this.registry],
  });

  /** Reads of an MCP server record whose stored header values did not decrypt: its tools are withheld. */
  readonly unreadableSecrets = new Counter({
    name: `${PREFIX}stored_secrets_unreadable_total`,
    help: 'Reads of an MCP server record whose stored header values did not decrypt (altered, moved, or under a key not held); its tools are withheld',
    registers: [this.registry],
  });

  /** Per-tool calls and latency, fed by the usage hook (src/adapters/edge/tool-usage-hook.ts). */
  readonly toolCalls = new ToolCallMetrics(this.registry, PREFIX);

  constructor(options: { processMetrics?: boolean } = {}) {
    // Series exist at 0 from the start, so rate() works before the first event.
    for (const reason of ['overflow', 'rejected'] as const) this.auditEventsDropped.inc({ reason }, 0);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  /** One answered HTTP request: counted and timed under the same labels. */
  recordResponse(method: string, route: string, status: number, seconds: number): void {
    this.responses.record(method, route, status, seconds);
  }

  recordKeyValidation(outcome: KeyValidationOutcome): void {
    this.keyValidations.inc(outcome);
  }

  /** The exposition text and its content type, for GET /metrics. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: `${await this.registry.metrics()}\n${this.responses.exposition()}` };
  }
}
