/**
 * Base of every expected failure. `code` is stable and is what the edges map
 * to HTTP statuses or JSON-RPC errors; the message is for people.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
