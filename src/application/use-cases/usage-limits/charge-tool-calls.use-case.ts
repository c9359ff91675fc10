import { QuotaExhaustedError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { UsageBudget } from '../../ports/usage-budget.port';

/** A POST may carry at most a batch of messages; more calls than this in one charge is a bug. */
const MAX_CALLS_PER_CHARGE = 1000;

export interface ChargeToolCallsInput {
  budgetId: string;
  hasQuota: boolean;
  /** The tools/call requests of one POST: each costs one credit, all or none. */
  calls: number;
}

/** Takes one credit per tool call from the key's quota before any of them runs; QuotaExhaustedError when it cannot. */
export class ChargeToolCalls {
  constructor(
    private readonly budget: UsageBudget,
    private readonly clock: Clock,
  ) {}

  async execute(input: ChargeToolCallsInput): Promise<void> {
    if (!input.hasQuota || input.calls <= 0) return;
    if (!Number.isInteger(input.calls) || input.calls > MAX_CALLS_PER_CHARGE)
      throw new RangeError(`cannot charge ${input.calls} calls at once`);
    if (!(await this.budget.chargeToolCalls(input.budgetId, input.calls, this.clock.now()))) throw new QuotaExhaustedError(input.calls);
  }
}
