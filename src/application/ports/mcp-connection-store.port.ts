import { McpConnection } from '../../domain/connection/mcp-connection';
import { AuthorizationServerMetadata, ClientRegistration, UpstreamTokenSet } from './upstream-authorization.port';

/** A connection with its secret opened, for the one upstream call that sends it. */
export interface OpenedConnection {
  connection: McpConnection;
  secret: string;
}

/** What an oauth connection holds, sealed as one value: the token set and what refreshing or revoking it needs. */
export interface OAuthGrant {
  tokens: UpstreamTokenSet;
  client: ClientRegistration;
  authorizationServer: AuthorizationServerMetadata;
  /** The RFC 8707 resource the tokens are for. */
  resource: string;
}

/** An oauth connection with its grant opened, for the upstream call that sends its access token. */
export interface OpenedGrant {
  connection: McpConnection;
  grant: OAuthGrant;
}

/**
 * Connections per (user, server), at most one each. Secrets are sealed at
 * rest, bound to user, server and field, so a sealed value copied to another
 * row does not open. A server's connections go with its record.
 */
export interface McpConnectionStore {
  /** The user's connection to the server, without its secret. */
  find(userId: string, serverId: string): Promise<McpConnection | null>;
  /** The user's connected user_secret connection to the server with its secret; null when there is none or it does not open. */
  openSecret(userId: string, serverId: string): Promise<OpenedConnection | null>;
  /** Stores the user's secret for the server, replacing any connection it had; `created` when there was none. */
  saveSecret(userId: string, serverId: string, secret: string): Promise<{ connection: McpConnection; created: boolean }>;
  /** The user's connected oauth connection to the server with its grant; null when there is none or it does not open. */
  openGrant(userId: string, serverId: string): Promise<OpenedGrant | null>;
  /** Stores the user's grant for the server (connected), replacing any connection it had and ending a refresh under way. */
  saveGrant(userId: string, serverId: string, grant: OAuthGrant): Promise<{ connection: McpConnection; created: boolean }>;
  /**
   * Claims the refresh of a connection for `seconds`, once across replicas:
   * true for the one caller whose claim took (none under way, or the last
   * one lapsed); false while another holds it.
   */
  claimRefresh(connectionId: string, seconds: number): Promise<boolean>;
  /**
   * Stores the refreshed grant of a connected oauth connection and ends its
   * refresh; `audit` is true at most once an hour per connection (the
   * refresh to record as `mcp_connection.refreshed`). Null when the
   * connection is gone or no longer connected.
   */
  saveRefreshed(
    connectionId: string,
    userId: string,
    serverId: string,
    grant: OAuthGrant,
  ): Promise<{ connection: McpConnection; audit: boolean } | null>;
  /** Ends a refresh claim without a new grant (the authorization server could not be reached). */
  releaseRefresh(connectionId: string): Promise<void>;
  /** Marks the user's oauth connection failed (its grant refused) and drops its tokens; the connection, or null when there was none. */
  markFailed(userId: string, serverId: string): Promise<McpConnection | null>;
  /** Forgets every user's connection to the server (its record moved elsewhere); those removed. */
  removeAllOf(serverId: string): Promise<McpConnection[]>;
  /** Forgets the user's connection to the server; the one removed, or null when there was none. */
  remove(userId: string, serverId: string): Promise<McpConnection | null>;
}
