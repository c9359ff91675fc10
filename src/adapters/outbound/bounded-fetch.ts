import { fetch, Response } from 'undici';
import { byteLimited } from '../mcp/upstream/byte-limited-body';

export interface BoundedFetchOptions {
  /** What is fetched ("the JWKS"), for error messages. */
  what: string;
  /** One deadline for the whole fetch: connections, redirects and the body. */
  timeoutMs: number;
  maxBytes: number;
}

/** A provider moving its keys once or twice is normal; a chain longer than this is not. */
const MAX_REDIRECTS = 3;

/**
 * The text of a document keygate trusts keys or issuers from (a JWKS, the
 * secret scanner's key list): a 2xx answer of at most maxBytes, read within
 * timeoutMs. Redirects are followed by hand, since fetch would follow one from
 * https to http, handing the document to whoever sits on the path; only
 * https targets, or http from http (outside production the configured URL may
 * be http; in production config allows https only), are followed. Throws an
 * Error saying what failed; it never holds the body.
 */
export async function fetchBounded(url: string, options: BoundedFetchOptions): Promise<string> {
  const { what, timeoutMs, maxBytes } = options;
  const signal = AbortSignal.timeout(timeoutMs);
  let current = new URL(url);
  for (let redirects = 0; ; redirects += 1) {
    const res = await fetch(current, {
      headers: { Accept: 'application/json', 'User-Agent': 'keygate' },
      redirect: 'manual',
      signal,
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      current = redirectTarget(current, res.headers.get('location'), redirects, what);
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`${what} answered HTTP ${res.status}`);
    }
    const tooLarge = () => new Error(`${what} is larger than ${maxBytes} bytes`);
    if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
      await res.body.cancel();
      throw tooLarge();
    }
    return new Response(byteLimited(res.body, maxBytes, tooLarge)).text();
  }
}

function redirectTarget(from: URL, location: string | null, redirects: number, what: string): URL {
  if (redirects >= MAX_REDIRECTS) throw new Error(`${what} redirected more than ${MAX_REDIRECTS} times`);
  const to = location === null || !URL.canParse(location, from.href) ? null : new URL(location, from);
  if (to === null) throw new Error(`${what} answered a redirect without a usable Location`);
  if (!redirectAllowed(from, to)) throw new Error(`${what} redirected from ${from.protocol} to ${to.protocol}; refused`);
  return to;
}

/** https anywhere, or http from http: never a step down from https. */
export function redirectAllowed(from: URL, to: URL): boolean {
  return to.protocol === 'https:' || (to.protocol === 'http:' && from.protocol === 'http:');
}
