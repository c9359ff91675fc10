/**
 * The canonical URI of an MCP server as the MCP authorization spec defines it
 * for RFC 8707's `resource`: absolute http(s), scheme and host lowercase (URL
 * does that, and drops a default port), no fragment, and no trailing slash
 * when the path is only "/" (the spec's "without the trailing slash" form; a
 * deeper trailing slash may be meaningful and is kept). Null when `url` is
 * not an absolute http(s) URL or carries credentials.
 */
export function canonicalResource(url: string): string | null {
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password) return null;
  parsed.hash = '';
  const text = parsed.href;
  return parsed.pathname === '/' && !parsed.search ? text.slice(0, -1) : text;
}

/**
 * Whether the protected resource `resource` covers the MCP endpoint `mcpUrl`
 * (RFC 9728 §3.3, as the MCP SDKs read it): same origin, and the endpoint's
 * path is the resource's path or lies below it, segment by segment.
 */
export function resourceCovers(resource: string, mcpUrl: string): boolean {
  const r = new URL(resource);
  const m = new URL(mcpUrl);
  if (r.origin !== m.origin) return false;
  const base = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
  return m.pathname === r.pathname || `${m.pathname}/` === base || m.pathname.startsWith(base);
}
