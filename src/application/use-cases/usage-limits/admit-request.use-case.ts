import { RateLimit } from '../../../domain/api-key';
import { RateLimitedError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { RateDecision, UsageBudget } from '../../ports/usage-budget.port';

export interface AdmitRequestInput {
  budgetId: string;
  rateLimit: RateLimit | null;
}

/**
 * Counts one /mcp request against the key's rate limit. Null for a key
 * without one; the decision otherwise, for the RateLimit headers; throws
 * RateLimitedError past the limit.
 */
export class AdmitRequest {
  constructor(
    private readonly budget: UsageBudget,
    private readonly clock: Clock,
  ) {}

  async execute(input: AdmitRequestInput): Promise<RateDecision | null> {
    if (input.rateLimit === null) return null;
    const decision = await this.budget.admitRequest(input.budgetId, input.rateLimit, this.clock.now());
    if (!decision.admitted) throw new RateLimitedError(decision.limit, decision.windowSeconds, Math.max(1, decision.resetSeconds));
    return decision;
  }
}
