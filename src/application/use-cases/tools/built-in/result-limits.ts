import { ValidationError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { MAX_LISTED_RECORDS } from '../../../ports/resource-store.port';

/**
 * The most one record's (or subresource item's) data may take as JSON, as the
 * store writes it. A 250 KB create used to be stored and echoed twice, a
 * 500 KB answer (hardening issue: no response over 64 KiB).
 */
export const MAX_RECORD_DATA_BYTES = 8 * 1024;

/**
 * The most bytes of records' JSON one tool result holds. A result carries its
 * value twice, as structuredContent and as JSON text, and the text copy
 * escapes at most every byte into two (`"` and `\`): 3 × 18 KiB plus the
 * JSON-RPC envelope stays under 64 KiB whatever the data. Callers that put
 * several results in one answer pass a smaller budget (CallToolInput.recordBytes).
 */
export const MAX_RESULT_RECORD_BYTES = 18 * 1024;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** `data` if it may be stored; a ValidationError naming `data` and the limit if not. */
export function storable<T extends Record<string, unknown>>(data: T): T {
  const bytes = jsonBytes(data);
  if (bytes > MAX_RECORD_DATA_BYTES) {
    throw ValidationError.single('data', `must be at most ${MAX_RECORD_DATA_BYTES} bytes as JSON (MAX_RECORD_DATA_BYTES); this would store ${bytes}`);
  }
  return data;
}

type View = (record: ResourceRecord) => Record<string, unknown>;

/**
 * A listing: the records oldest first, as many as fit in `budget` bytes of
 * JSON and at most MAX_LISTED_RECORDS, with `truncated: true` when more
 * matched. `found` holds one record more than a listing shows when there were
 * more, so that a cut at the count is reported too.
 */
export function listing(found: readonly ResourceRecord[], view: View, budget: number): Record<string, unknown> {
  const records: Record<string, unknown>[] = [];
  let bytes = 2;
  for (const record of found) {
    if (records.length === MAX_LISTED_RECORDS) return { records, truncated: true };
    const shown = view(record);
    bytes += jsonBytes(shown) + (records.length > 0 ? 1 : 0);
    if (bytes > budget) return { records, truncated: true };
    records.push(shown);
  }
  return { records };
}

/**
 * One record under `key`. Stored data is at most MAX_RECORD_DATA_BYTES, which
 * fits a lone call's budget; a record over a smaller, shared budget is shown
 * without its data and the result says `truncated: true`.
 */
export function single(key: string, record: ResourceRecord, view: View, budget: number): Record<string, unknown> {
  const shown = view(record);
  if (jsonBytes(shown) <= budget) return { [key]: shown };
  const { data: _omitted, ...rest } = shown;
  return { [key]: rest, truncated: true };
}
