/**
 * The path (under /api/v1) of the next page a list's `Link: <…>; rel="next"` header names, or null.
 * Only a link to the same collection is followed: the console never lets a header send it elsewhere.
 */
export function nextPageOf(headers: Headers, collection: string): string | null {
  const link = headers.get('Link') ?? '';
  const target = /<([^>]{1,2048})>\s*;\s*rel="?next"?/.exec(link)?.[1];
  if (!target) return null;
  const prefix = `/api/v1${collection}?`;
  return target.startsWith(prefix) ? target.slice('/api/v1'.length) : null;
}
