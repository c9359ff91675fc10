import { ValidationError } from '../../../../domain/errors';

/**
 * The most one record's (or subresource item's) data may take as JSON, as the
 * store writes it. A 250 KB create used to be stored and echoed twice, a
 * 500 KB answer (hardening issue: no response over 64 KiB).
 */
export const MAX_RECORD_DATA_BYTES = 8 * 1024;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** `data` if it may be stored; a ValidationError naming `data` and the limit if not. */
export function storable<T extends Record<string, unknown>>(data: T): T {
  const bytes = jsonBytes(data);
  if (bytes > MAX_RECORD_DATA_BYTES) {
    throw ValidationError.single(
      'data',
      `must be at most ${MAX_RECORD_DATA_BYTES} bytes as JSON (MAX_RECORD_DATA_BYTES); this would store ${bytes}`,
    );
  }
  return data;
}
