import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';

/**
 * Narrows a listing: `text` matches anywhere in the data, `where` by JSON
 * containment. Neither looks at secret fields (secretFieldsAt), so they cannot
 * be guessed one character at a time.
 */
export interface RecordFilter {
  text?: string;
  where?: Record<string, unknown>;
}

/** Most records one listing returns. */
export const MAX_LISTED_RECORDS = 100;

/**
 * The records behind the built-in tools. Every method but ownerOf takes the
 * owner first and never reads or changes another owner's records, so one
 * user's key cannot reach another's data. A remote platform backend can
 * replace it.
 */
export interface ResourceStore {
  /** `id` is the new record's, when the caller picks it (an encrypting store binds secrets to it); a fresh one otherwise. */
  create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id?: string): Promise<ResourceRecord>;
  /** Like create, but null when the owner already holds `limit` records at `at`; concurrent creates cannot pass it. */
  createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id?: string,
  ): Promise<ResourceRecord | null>;
  /** The record `id` if it is the owner's and lives at `at`. */
  find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null>;
  /** Oldest first, at most `limit` (MAX_LISTED_RECORDS when left out), after skipping the first `offset` (a page of a longer list). */
  list(ownerId: string, at: RecordLocation, filter?: RecordFilter, limit?: number, offset?: number): Promise<ResourceRecord[]>;
  /** Replaces the data of a record found at `at`; null when there is none. */
  update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null>;
  /** Deletes a record found at `at` with everything attached to it; false when there is none. */
  remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean>;
  /** Whose record `id` at `at` is, null when there is none: for an admin's request, which may name any user's record by id. */
  ownerOf(at: RecordLocation, id: string): Promise<string | null>;
}
