import { QueryFailedError } from 'typeorm';
import { ConflictError } from '../../domain/errors';

/** Turns PostgreSQL's unique_violation (23505) into the domain's ConflictError. */
export async function conflictOnDuplicate<T>(work: () => Promise<T>, message: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
    if (code === '23505') throw new ConflictError(message);
    throw error;
  }
}
