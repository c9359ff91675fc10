import { setImmediate as nextTurn } from 'node:timers/promises';
import { AuditQueue } from '../../application/ports/audit-log.port';
import { Clock } from '../../application/ports/clock.port';
import { DecidingRule, ToolCallResult, toolCallEvent } from '../../application/use-cases/gateway/tools/tool-call-audit';
import { AuditOrigin, AuditRecord } from '../../domain/audit';
import { UsageOutcome } from '../../domain/usage';
import { argumentsSha256 } from '../audit/arguments-digest';
import { ToolUsageHook } from '../edge/tool-usage-hook';
import { RPC } from './json-rpc';
import { RpcError } from './rpc-error';

/** Who made a call: the validated key, or a user's access token (whose `keyId` is no key's and is never recorded). */
export interface Caller {
  keyId: string;
  userId: string;
  accessToken?: unknown;
}

/** One tools/call: its tool, its arguments, and the scopes it needs. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown> | undefined;
  requiredScopes: readonly string[];
  /** The rule that refused a denied call, when a rule did (not its scopes). */
  rule?: DecidingRule;
}

/** How usage counts a call that was run: its outcome, and the tool name when not the call's (`other` for a tool that does not exist). */
export interface UsageVerdict {
  outcome: UsageOutcome;
  tool?: string;
}

const CALLED: UsageVerdict = { outcome: 'called' };

/** What a call whose event could not be written is answered instead of its result (docs/audit.md, "Audit trail"). */
export const UNAUDITED_MESSAGE =
  'The tool call was made but its audit event could not be written, so its result is withheld; it may have taken effect. Retry shortly';

/**
 * Records a tool.called or tool.denied event for each tools/call, and lets
 * the call be answered only once its event is committed: the audit queue
 * writes it in the next batch, shared with the calls that end meanwhile.
 */
export class ToolCallRecorder {
  constructor(
    private readonly queue: AuditQueue,
    private readonly clock: Clock,
    /** Counts each call's outcome (usage and metrics); absent, nothing is counted. */
    private readonly usage?: ToolUsageHook,
  ) {}

  /**
   * A call the tool gate refused for scope: nothing ran, so it took no time.
   * Rejects as the queue does (a DatabaseUnavailableError is the edge's 503).
   */
  denied(caller: Caller, origin: AuditOrigin, call: ToolCall): Promise<void> {
    this.count(caller, call.name, 'denied', 0);
    return this.queue.append(this.event(caller, origin, call, 'denied', 0, this.clock.now()));
  }

  /**
   * Runs a call and records it however it ends (`resultOf` reads the
   * outcome; a thrown failure is an error), then returns or rethrows once
   * the event is committed. When it cannot be, the call fails with a
   * JSON-RPC server error instead, whatever the tool did: the tool has run,
   * and its result is withheld rather than given without its trail.
   */
  /**
   * A call refused before the gate's target was found to run (an unknown
   * tool, one held for an approval): counted as denied, with no audit event
   * of its own here.
   */
  refused(caller: Caller, tool: string): void {
    this.count(caller, tool, 'denied', 0);
  }

  async run<T>(
    caller: Caller,
    origin: AuditOrigin,
    call: ToolCall,
    work: () => Promise<T>,
    resultOf: (value: T) => Exclude<ToolCallResult, 'denied'>,
    /** How usage counts it (default: called, under its name); `failure` is what work threw, when it did. */
    usageOf: (value: T | undefined, failed: boolean, failure: unknown) => UsageVerdict = () => CALLED,
  ): Promise<T> {
    const at = this.clock.now();
    const started = performance.now();
    let value: T | undefined;
    let failed = false;
    let failure: unknown;
    let result: Exclude<ToolCallResult, 'denied'> = 'error';
    try {
      value = await work();
      result = resultOf(value);
    } catch (error) {
      failed = true;
      failure = error;
    }
    const durationMs = performance.now() - started;
    const usage = usageOf(value, failed, failure);
    // Settled now, so a failed write waiting below is not an unhandled rejection.
    const written = this.queue.append(this.event(caller, origin, call, result, durationMs, at)).then(
      () => true,
      () => false,
    );
    // Counted once the event's batch is on its way (the queue writes it on the turn's check phase, ahead of
    // this): not on the answer's path, which waits for the commit, and always before the answer.
    await nextTurn();
    this.count(caller, usage.tool ?? call.name, usage.outcome, durationMs);
    // The queue has said why, once per outage (or per refused event): not again per call.
    if (!(await written)) throw new RpcError(RPC.SERVER_ERROR, UNAUDITED_MESSAGE);
    if (failed) throw failure;
    return value as T;
  }

  private count(caller: Caller, tool: string, outcome: UsageOutcome, durationMs: number): void {
    this.usage?.record({ userId: caller.userId, keyId: caller.accessToken === undefined ? caller.keyId : null, tool, outcome, durationMs });
  }

  private event(caller: Caller, origin: AuditOrigin, call: ToolCall, result: ToolCallResult, durationMs: number, at: Date): AuditRecord {
    return toolCallEvent({
      keyId: caller.accessToken === undefined ? caller.keyId : null,
      userId: caller.userId,
      origin,
      tool: call.name,
      arguments: call.arguments,
      result,
      durationMs,
      argsSha256: argumentsSha256(call.arguments),
      requiredScopes: call.requiredScopes,
      ...(call.rule && { rule: call.rule }),
      at,
    });
  }
}
