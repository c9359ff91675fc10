/** How a connection holds its credential: an OAuth token set, or a secret the user stored. */
export type ConnectionKind = 'oauth' | 'user_secret';
/** `pending`: an authorization under way; `connected`: usable; `failed`: its owner must connect again. */
export type ConnectionState = 'pending' | 'connected' | 'failed';

/**
 * One user's credential for one upstream MCP server (issue 27), as it may be
 * shown: never the secret or a token, which the store keeps sealed.
 */
export interface McpConnection {
  id: string;
  userId: string;
  serverId: string;
  kind: ConnectionKind;
  state: ConnectionState;
  /** Scopes the authorization server granted (oauth); empty for a user secret. */
  scopes: string[];
  /** When the access token expires (oauth); null when it does not or is no token. */
  expiresAt: Date | null;
  /** Who the user is at the upstream (oauth), as its token answer said; null when unknown or for a secret. */
  account: string | null;
  createdAt: Date;
  updatedAt: Date;
}
