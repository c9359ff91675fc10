import { McpConnection } from '../../domain/connection/mcp-connection';

/** A connection with its secret opened, for the one upstream call that sends it. */
export interface OpenedConnection {
  connection: McpConnection;
  secret: string;
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
  /** Forgets every user's connection to the server (its record moved elsewhere); those removed. */
  removeAllOf(serverId: string): Promise<McpConnection[]>;
  /** Forgets the user's connection to the server; the one removed, or null when there was none. */
  remove(userId: string, serverId: string): Promise<McpConnection | null>;
}
