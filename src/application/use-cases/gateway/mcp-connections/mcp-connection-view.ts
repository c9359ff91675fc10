import { ConnectionKind, ConnectionState, McpConnection } from '../../../../domain/connection/mcp-connection';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { AuthType, authOf } from '../external/server-auth';

/** A user's connection to a server as it may be shown: its state and times, never the secret or a token. */
export interface McpConnectionView {
  serverId: string;
  /** The server's auth type: whether it takes a connection at all, and which kind. */
  authType: AuthType;
  /** `not_connected` when the user has none. */
  state: ConnectionState | 'not_connected';
  kind: ConnectionKind | null;
  scopes: string[];
  expiresAt: Date | null;
  account: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

export function connectionView(server: ResourceRecord, connection: McpConnection | null): McpConnectionView {
  return {
    serverId: server.id,
    authType: authOf(server.data).type,
    state: connection?.state ?? 'not_connected',
    kind: connection?.kind ?? null,
    scopes: connection?.scopes ?? [],
    expiresAt: connection?.expiresAt ?? null,
    account: connection?.account ?? null,
    createdAt: connection?.createdAt ?? null,
    updatedAt: connection?.updatedAt ?? null,
  };
}
