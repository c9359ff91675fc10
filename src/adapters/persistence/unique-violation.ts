import { QueryFailedError } from 'typeorm';
import { ConflictError } from '../../domain/errors';
import { databaseCall } from './database-unavailable';

/** Turns PostgreSQL's unique_violation (23505) into the domain's ConflictError; an outage as databaseCall does. */
export async function conflictOnDuplicate<T>(work: () => Promise<T>, message: string): Promise<T> {
  try {
    return await databaseCall(work());
  } catch (error) {
    const code = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
    if (code === '23505') throw new ConflictError(message);
    throw error;
  }
}
