import { AuditQueue } from '../../application/ports/audit-log.port';
import { Clock } from '../../application/ports/clock.port';
import { ToolCallResult, toolCallEvent } from '../../application/use-cases/tools/tool-call-audit';
import { AuditOrigin } from '../../domain/audit';
import { argumentsSha256 } from '../audit/arguments-digest';

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
}

/**
 * Puts a tool.called or tool.denied event for each tools/call on the audit
 * queue. Hashing the arguments is the only work done on the request's path;
 * the queue writes later. A fault here is logged, never the call's failure.
 */
export class ToolCallRecorder {
  constructor(
    private readonly queue: AuditQueue,
    private readonly clock: Clock,
    private readonly log: (error: unknown) => void,
  ) {}

  /** A call the tool gate refused for scope: nothing ran, so it took no time. */
  denied(caller: Caller, origin: AuditOrigin, call: ToolCall): void {
    this.record(caller, origin, call, 'denied', 0, this.clock.now());
  }

  /**
   * Runs a call and records it however it ends: `resultOf` reads the
   * outcome, and a thrown failure is an error, recorded and then rethrown.
   */
  async run<T>(caller: Caller, origin: AuditOrigin, call: ToolCall, work: () => Promise<T>, resultOf: (value: T) => 'ok' | 'error'): Promise<T> {
    const at = this.clock.now();
    const started = performance.now();
    let result: 'ok' | 'error' = 'error';
    try {
      const value = await work();
      result = resultOf(value);
      return value;
    } finally {
      this.record(caller, origin, call, result, performance.now() - started, at);
    }
  }

  private record(caller: Caller, origin: AuditOrigin, call: ToolCall, result: ToolCallResult, durationMs: number, at: Date): void {
    try {
      this.queue.enqueue(toolCallEvent({
        keyId: caller.accessToken === undefined ? caller.keyId : null,
        userId: caller.userId,
        origin,
        tool: call.name,
        arguments: call.arguments,
        result,
        durationMs,
        argsSha256: argumentsSha256(call.arguments),
        requiredScopes: call.requiredScopes,
        at,
      }));
    } catch (error) {
      this.log(error);
    }
  }
}
