import { DomainError } from './domain-error';

/** A client session already follows as many upstream resources as it may: it must unsubscribe from one first. */
export class SubscriptionLimitError extends DomainError {
  readonly code = 'MCP_SUBSCRIPTION.LIMIT';

  constructor(readonly max: number) {
    super(`This session already follows ${max} resources (MCP_MAX_SUBSCRIPTIONS_PER_SESSION); unsubscribe from one first`);
  }
}
