import { DomainError } from './domain-error';

/** A key's quota has no credit left for the tool calls asked for; none of them ran. */
export class QuotaExhaustedError extends DomainError {
  readonly code = 'QUOTA.EXHAUSTED';

  constructor(readonly calls: number) {
    super(
      calls === 1
        ? "This key's quota has no credit left for a tool call"
        : `This key's quota has fewer than the ${calls} credits these tool calls need`,
    );
  }
}
