import { RequestHandler } from 'express';
import { isJSONRPCRequest, JSONRPCMessage } from '@modelcontextprotocol/server';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { AdmitRequest } from '../../application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../application/use-cases/usage-limits/charge-tool-calls.use-case';
import { QuotaExhaustedError, RateLimitedError } from '../../domain/errors';
import { principalOf } from './api-key-auth';
import { rateLimitHeaders } from './rate-limit-headers';

export interface UsageGateOptions {
  admit: AdmitRequest;
  charge: ChargeToolCalls;
  /** Hears of each refusal (the metrics). */
  refused?: (kind: 'rate_limited' | 'quota_exhausted') => void;
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
  readonly admitRequest: RequestHandler = async (_req, res, next) => {
    const principal = principalOf(res.locals);
    if (principal.rateLimit === null) return next();
    try {
      const decision = await this.options.admit.execute({ budgetId: principal.budgetId, rateLimit: principal.rateLimit });
      if (decision) for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
    } catch (error) {
      if (error instanceof RateLimitedError) this.options.refused?.('rate_limited');
      throw error;
    }
    next();
  };

  /** Throws QuotaExhaustedError when the key's quota cannot pay for every tools/call of the POST. */
  async chargeToolCalls(principal: KeyPrincipal, messages: readonly JSONRPCMessage[]): Promise<void> {
    if (!principal.hasQuota) return;
    const calls = toolCallsIn(messages);
    try {
      await this.options.charge.execute({ budgetId: principal.budgetId, hasQuota: true, calls });
    } catch (error) {
      if (error instanceof QuotaExhaustedError) this.options.refused?.('quota_exhausted');
      throw error;
    }
  }
}

/** The tools/call requests of a POST (notifications do not run tools, and cost nothing). */
export function toolCallsIn(messages: readonly JSONRPCMessage[]): number {
  let calls = 0;
  for (const message of messages) {
    if ((message as { method?: unknown }).method === 'tools/call' && isJSONRPCRequest(message)) calls += 1;
  }
  return calls;
}
