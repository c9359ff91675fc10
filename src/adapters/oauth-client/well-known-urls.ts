/**
 * Where RFC 9728 metadata for the protected resource `mcpUrl` may be, in the
 * order the MCP authorization spec tries them when the 401 names none: the
 * well-known suffix inserted between host and path (RFC 9728 §3.1), then at
 * the root. One URL when the resource has no path.
 */
export function protectedResourceMetadataUrls(mcpUrl: string): string[] {
  const url = new URL(mcpUrl);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const root = `${url.origin}/.well-known/oauth-protected-resource`;
  return path === '' && !url.search ? [root] : [`${root}${path}${url.search}`, root];
}

/**
 * Where the metadata of the authorization server `issuer` may be, in the
 * MCP spec's order: RFC 8414 with path insertion, then OpenID Connect
 * discovery with path insertion, then OpenID Connect discovery appended to
 * the path; for an issuer without a path, RFC 8414 then OpenID Connect.
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const oauth = `${url.origin}/.well-known/oauth-authorization-server`;
  const oidc = `${url.origin}/.well-known/openid-configuration`;
  if (path === '') return [oauth, oidc];
  return [`${oauth}${path}`, `${oidc}${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}
