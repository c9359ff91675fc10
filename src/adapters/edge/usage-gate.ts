import { RequestHandler, Response } from 'express';
import { JSONRPCMessage } from '@modelcontextprotocol/server';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AdmitRequest } from '../../application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../application/use-cases/usage-limits/charge-tool-calls.use-case';
import { QuotaExhaustedError, RateLimitedError } from '../../domain/errors';
import { OTHER_TOOL, UNREAD_TOOL, UsageOutcome } from '../../domain/usage';
import { principalOf } from './api-key-auth';
import { rateLimitHeaders } from './rate-limit-headers';
import { ToolUsageHook } from './tool-usage-hook';

export interface UsageGateOptions {
  admit: AdmitRequest;
  charge: ChargeToolCalls;
  /** Hears of each refusal (the metrics). */
  refused?: (kind: 'rate_limited' | 'quota_exhausted') => void;
  /** Counts the tool calls refused on /mcp (usage and per-tool metrics). */
  usage?: ToolUsageHook;
}

/**
 * A key's usage limits at the /mcp edge: every request counts against the
 * rate limit right after the key is validated, and the tools/call requests
 * of a POST are charged to the quota, all or none, before any of them runs.
 * Both refusals are 429 problems (http-errors.ts); the RateLimit fields go
 * on every response to a rate-limited key, whatever its status.
 */
export class UsageGate {
  constructor(private readonly options: UsageGateOptions) {}

  /** Middleware, after apiKeyAuth. */
  readonly admitRequest: RequestHandler = (_req, res, next) => this.admit(res, false, next);

  /**
   * admitRequest for /mcp: a refused request is also counted as one
   * rate_limited tool call under tool "" (its body is not read, so which
   * calls it held, if any, is unknown).
   */
  readonly admitMcpRequest: RequestHandler = (_req, res, next) => this.admit(res, true, next);

  private async admit(res: Response, counted: boolean, next: () => void): Promise<void> {
    const principal = principalOf(res.locals);
    if (principal.rateLimit === null) return next();
    try {
      const decision = await this.options.admit.execute({ budgetId: principal.budgetId, rateLimit: principal.rateLimit });
      if (decision) for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    } catch (error) {
      if (error instanceof RateLimitedError) {
        this.options.refused?.('rate_limited');
        if (counted) this.count(principal, UNREAD_TOOL, 'rate_limited');
      }
      throw error;
    }
    next();
  }

  /**
   * Throws QuotaExhaustedError when the key's quota cannot pay for every
   * tools/call of the POST, counting each as quota_exhausted under its name
   * when `known` says the tool exists (`other` when not).
   */
  async chargeToolCalls(principal: KeyPrincipal, messages: readonly JSONRPCMessage[], known?: (name: string) => boolean): Promise<void> {
    if (!principal.hasQuota) return;
    const calls = toolCallsIn(messages);
    try {
      await this.options.charge.execute({ budgetId: principal.budgetId, hasQuota: true, calls });
    } catch (error) {
      if (error instanceof QuotaExhaustedError) {
        this.options.refused?.('quota_exhausted');
        for (const name of toolNamesIn(messages)) this.count(principal, known?.(name) === true ? name : OTHER_TOOL, 'quota_exhausted');
      }
      throw error;
    }
  }

  private count(principal: KeyPrincipal, tool: string, outcome: UsageOutcome): void {
    const keyId = principal.accessToken === undefined ? principal.keyId : null;
    this.options.usage?.record({ userId: principal.userId, keyId, tool, outcome, durationMs: 0 });
  }
}

/** The tool names of a POST's tools/call requests (json-rpc-body and params-check have let only well-formed ones through). */
function toolNamesIn(messages: readonly JSONRPCMessage[]): string[] {
  const names: string[] = [];
  for (const message of messages) {
    const { params } = message as { params?: { name?: unknown } };
    if (isToolCallRequest(message)) names.push(typeof params?.name === 'string' ? params.name : OTHER_TOOL);
  }
  return names;
}

/** The tools/call requests of a POST (notifications do not run tools, and cost nothing). */
export function toolCallsIn(messages: readonly JSONRPCMessage[]): number {
  let calls = 0;
  for (const message of messages) if (isToolCallRequest(message)) calls += 1;
  return calls;
}

/**
 * A message json-rpc-body accepted (the SDK's strict message union) is a
 * request exactly when it has a method and an id: a notification has no id,
 * a response no method. So no second schema parse, about 10 µs a call.
 */
function isToolCallRequest(message: JSONRPCMessage): boolean {
  return (message as { method?: unknown }).method === 'tools/call' && 'id' in message;
}
