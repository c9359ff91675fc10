import type { ErrorCode } from './error-code';

/**
 * Base of every expected failure. `code` is stable and is what the edges map
 * to HTTP statuses or JSON-RPC errors; the message is for people.
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
