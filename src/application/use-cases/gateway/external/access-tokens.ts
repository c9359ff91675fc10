import { McpConnection } from '../../../../domain/connection/mcp-connection';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { McpConnectionStore } from '../../../ports/mcp-connection-store.port';

/** The access token one upstream call sends, and the connection it is of. */
export interface UsableToken {
  connection: McpConnection;
  /** Secret. */
  token: string;
}

/** The caller's usable access token for an oauth server; null when they have no usable connection. */
export interface AccessTokens {
  open(userId: string, server: ResourceRecord): Promise<UsableToken | null>;
}

/** The stored access token as it is, never refreshed. */
export class StoredAccessTokens implements AccessTokens {
  constructor(private readonly connections: McpConnectionStore | null) {}

  async open(userId: string, server: ResourceRecord): Promise<UsableToken | null> {
    const opened = this.connections && (await this.connections.openGrant(userId, server.id));
    return opened && { connection: opened.connection, token: opened.grant.tokens.accessToken };
  }
}
