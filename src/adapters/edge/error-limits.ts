import { clip, clipMessage, MAX_FIELD_ERRORS } from '../../domain/errors';

/**
 * The edge's half of the error bounds (hardening issue, row 1): whatever
 * produced an error, problem bodies and JSON-RPC errors pass through here
 * before they are sent, so no path can answer with a huge body again.
 */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;
/** Deeper parts of an error's data are left out; no error of ours nests further. */
const MAX_DATA_DEPTH = 3;

/**
 * An error's list or data as sent: arrays and objects keep their first
 * MAX_FIELD_ERRORS entries, strings are clipped to MAX_MESSAGE_LENGTH.
 */
export function boundData(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clipMessage(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth === MAX_DATA_DEPTH) return '…';
  if (Array.isArray(value)) return value.slice(0, MAX_FIELD_ERRORS).map((item) => boundData(item, depth + 1));
  const entries = Object.entries(value).slice(0, MAX_FIELD_ERRORS);
  // fromEntries defines properties, so a "__proto__" key stays a plain key.
  return Object.fromEntries(entries.map(([key, item]) => [clipMessage(key), boundData(item, depth + 1)]));
}

/**
 * `body` with the list under `key` shortened from its end, or dropped, until
 * its JSON is under `budget` bytes. Bounded entries fit easily; only text
 * that JSON escapes six-fold (control characters) comes near the budget.
 */
export function withinBudget<T extends object>(body: T, key: keyof T, budget: number): T {
  const fitted = { ...body };
  while (Buffer.byteLength(JSON.stringify(fitted)) >= budget && fitted[key] !== undefined) {
    const list = fitted[key];
    if (Array.isArray(list) && list.length > 1) fitted[key] = list.slice(0, -1) as T[keyof T];
    else delete fitted[key];
  }
  return fitted;
}

/** Text that stands for an error where no list applies (a tool's isError result), under `budget` bytes as JSON. */
export function clipToBytes(text: string, budget: number): string {
  let clipped = clip(text, budget);
  while (Buffer.byteLength(JSON.stringify(clipped)) >= budget) clipped = clip(clipped, Math.floor(clipped.length / 2));
  return clipped;
}
