import { ValidationError } from '../../../../domain/errors';
import { jsonBytes } from '../built-in/data-limits';

/** Items on one page of resources/list, resources/templates/list or prompts/list. */
export const MAX_PAGE_ITEMS = 100;
/**
 * Bytes of items' JSON on one page: with the envelope, a lone answer stays
 * under 64 KiB. A batch's answers share one body, so each list gets a share.
 * A single item larger than the budget still goes out alone, so paging moves on.
 */
export const MAX_PAGE_BYTES = 48 * 1024;
const CURSOR = /^[0-9]{1,6}$/;

export interface ItemPage<T> {
  items: T[];
  /** Where the next page starts; absent on the last. */
  nextCursor?: string;
}

/**
 * One page of a list from `start`, the offset a cursor carried (keygate hands
 * out offsets; the lists behind them are cached, so a page follows the last).
 */
export function pageOf<T>(all: readonly T[], start: number, bytes = MAX_PAGE_BYTES): ItemPage<T> {
  const items: T[] = [];
  let used = 2;
  for (let at = start; at < all.length; at++) {
    used += jsonBytes(all[at]) + 1;
    if (items.length === MAX_PAGE_ITEMS || (items.length > 0 && used > bytes)) return { items, nextCursor: String(at) };
    items.push(all[at]);
  }
  return { items };
}

/** The offset a cursor carries; read before any upstream is contacted. */
export function parseCursor(cursor: unknown): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string' || !CURSOR.test(cursor))
    throw ValidationError.single('cursor', 'was never issued: pass the nextCursor of the last page');
  return Number(cursor);
}
