/**
 * Where the Mcp-Name header's value comes from in the body, per method. The
 * header lets an intermediary route or authorize by name without reading the
 * body, so a request whose header and body disagree must not be served.
 */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Canonical padded base64 only: two encodings of one name must not both pass. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body field Mcp-Name mirrors for `method`, or undefined when the method has none. */
export function nameSourceOf(method: string): 'name' | 'uri' | undefined {
  return Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
}

/**
 * The header's value as the client meant it: a value that is not plain ASCII
 * travels as `=?base64?…?=` and the spec says servers MUST decode it before
 * comparing. Undefined for a sentinel whose payload is not canonical base64
 * of UTF-8, which the spec makes a header mismatch.
 */
export function decodeMcpName(header: string): string | undefined {
  // Node trims the value already; trimmed again so the function holds on its own, as the SDK's does.
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  if (
    !value.startsWith(SENTINEL_PREFIX) ||
    !value.endsWith(SENTINEL_SUFFIX) ||
    value.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length
  ) {
    return value;
  }
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return strictUtf8.decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}
