import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError } from '../../domain/errors';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/** SQLSTATE classes and codes that mean "the server is not there right now", not "your query is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300)$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused|not connected|the database system is (starting up|shutting down)/i;

/** True when an error means PostgreSQL could not be reached or went away mid-query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const candidates = [error, error instanceof QueryFailedError ? error.driverError : undefined];
  return candidates.some((e) => {
    if (!e || typeof e !== 'object') return false;
    const { code, message, name } = e as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code))) return true;
    if (name === 'CannotExecuteNotConnectedError' || name === 'ConnectionIsNotSetError') return true;
    return typeof message === 'string' && MESSAGES.test(message);
  });
}

/**
 * Every database call of a repository goes through here: a failure that
 * means PostgreSQL is away becomes the domain's DatabaseUnavailableError, so
 * that no layer above persistence has to recognise driver errors; any other
 * failure is left as it is (a bug, or a unique violation for the caller).
 */
export function databaseCall<T>(pending: Promise<T>): Promise<T> {
  return pending.catch((error: unknown) => {
    throw isDatabaseUnavailable(error) ? new DatabaseUnavailableError({ cause: error }) : error;
  });
}
