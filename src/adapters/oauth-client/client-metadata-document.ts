/**
 * The OAuth Client ID Metadata Document keygate serves at `clientId` (an
 * https URL that is also its client id): a public client using PKCE and the
 * authorization code with refresh tokens, as the MCP authorization spec asks
 * of a client that registers this way. The route that serves it comes later.
 */
export function clientMetadataDocument(clientId: string, redirectUris: string[], clientName: string): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: clientName,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
