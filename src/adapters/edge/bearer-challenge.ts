/**
 * The `WWW-Authenticate` values of RFC 6750 section 3. A request without
 * credentials gets the bare challenge, without an error code (section 3.1).
 */
export function invalidTokenChallenge(credentialsPresented: boolean): string {
  return credentialsPresented ? 'Bearer realm="keygate", error="invalid_token"' : 'Bearer realm="keygate"';
}

/** Names the scopes to ask for, space-delimited as section 3 has them. */
export function insufficientScopeChallenge(scopes: readonly string[]): string {
  return `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"`;
}
