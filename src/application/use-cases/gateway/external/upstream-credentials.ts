import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { McpConnection } from '../../../../domain/connection/mcp-connection';
import { McpConnectionStore } from '../../../ports/mcp-connection-store.port';
import { AccessTokens, StoredAccessTokens } from './access-tokens';
import { UpstreamServer } from '../../../ports/upstream-mcp.port';
import { authOf } from './server-auth';
import { toServer } from './upstream-servers';

/**
 * How one caller reaches a server: the server with the headers their call
 * carries, the secrets in them (to be taken out of any text shown or logged),
 * and the key its tool listing is cached under; or, when the caller has no
 * usable credential, what their call answers instead (no upstream request).
 */
export type CallerReach =
  | { ok: true; server: UpstreamServer; secrets: readonly string[]; listKey: string }
  /** `connectUrl`: the caller could connect there, after which the same call works. */
  | { ok: false; shown: string; connectUrl?: string };

/** Where a user connects to a server: the console's connect page for it. */
export type ConnectUrl = (serverId: string) => string;

/**
 * The credentials a caller's upstream requests carry. A `static` server is
 * reached with its record's headers, as ever. A `user_secret` server with
 * `header: prefix + secret` of THE CALLER's own connection, added to the
 * record's headers (it replaces one of the same name); never with anyone
 * else's, and not at all without one. An `oauth` server with
 * `Authorization: Bearer` and the access token of the caller's own
 * connection (AccessTokens refreshes it near its expiry). token_exchange
 * servers are not contacted yet. One indexed read of the connection per call.
 */
export class UpstreamCredentials {
  constructor(
    private readonly connections: McpConnectionStore | null,
    private readonly connectUrl: ConnectUrl,
    /** The caller's usable access token of an oauth connection (refreshed when near its expiry); none reads it straight. */
    private readonly accessTokens: AccessTokens = new StoredAccessTokens(connections),
  ) {}

  /** Throws what toServer throws for a record that cannot be used (its secrets did not decrypt). */
  async reach(record: ResourceRecord, callerId: string): Promise<CallerReach> {
    const auth = authOf(record.data);
    const name = String(record.data.name);
    if (auth.type === 'static') return { ok: true, server: toServer(record), secrets: [], listKey: listKeyOf(record) };
    if (auth.type === 'oauth') {
      const opened = this.connections && (await this.accessTokens.open(callerId, record));
      if (!opened) return this.notConnected(record);
      return reachWith(record, callerId, 'Authorization', 'Bearer ', opened.token, opened.connection);
    }
    if (auth.type !== 'user_secret') {
      return { ok: false, shown: `The MCP server ${name} uses ${auth.type} auth, which keygate cannot use yet: it is not contacted` };
    }
    const opened = this.connections && (await this.connections.openSecret(callerId, record.id));
    if (!opened) return this.notConnected(record);
    return reachWith(record, callerId, auth.header, auth.prefix ?? '', opened.secret, opened.connection);
  }

  private notConnected(record: ResourceRecord): CallerReach {
    const connectUrl = this.connectUrl(record.id);
    return {
      ok: false,
      shown: `The MCP server ${String(record.data.name)} needs your own credential: connect to it at ${connectUrl}, then call again`,
      connectUrl,
    };
  }
}

/** The record's headers with the caller's own `header: prefix + secret` (replacing one of the same name). */
function reachWith(
  record: ResourceRecord,
  callerId: string,
  header: string,
  prefix: string,
  secret: string,
  connection: McpConnection,
): CallerReach {
  const server = toServer(record, { perUser: true });
  const value = prefix + secret;
  const others = Object.entries(server.headers).filter(([name]) => name.toLowerCase() !== header.toLowerCase());
  return {
    ok: true,
    server: { ...server, headers: { ...Object.fromEntries(others), [header]: value } },
    secrets: [value, secret],
    // The caller's own listing, made with their credential, gone when they reconnect or disconnect.
    listKey: `${listKeyOf(record)} ${callerId} ${connection.id}@${connection.updatedAt.toISOString()}`,
  };
}

/** Where a record's shared tool listing is cached: its id and version, so an edited record is a new entry. */
export function listKeyOf(record: ResourceRecord): string {
  return `${record.id}@${record.updatedAt.toISOString()}`;
}
