import { DomainError } from './domain-error';

/**
 * PostgreSQL could not be reached or went away mid-query: not the caller's
 * fault, and worth a retry. Persistence throws it in place of the driver's
 * error (kept as `cause`, for the log), so the edges answer it by its code
 * without knowing the driver.
 */
export class DatabaseUnavailableError extends DomainError {
  readonly code = 'DATABASE.UNAVAILABLE';

  constructor(options?: ErrorOptions) {
    super('The database is not reachable; retry shortly', options);
  }
}
