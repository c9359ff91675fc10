import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { McpConnectionStore } from '../../../ports/mcp-connection-store.port';
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
 * else's, and not at all without one. Servers whose auth keygate cannot use
 * yet (oauth, token_exchange) are not contacted. One indexed read of the
 * connection per call.
 */
export class UpstreamCredentials {
  constructor(
    private readonly connections: McpConnectionStore | null,
    private readonly connectUrl: ConnectUrl,
  ) {}

  /** Throws what toServer throws for a record that cannot be used (its secrets did not decrypt). */
  async reach(record: ResourceRecord, callerId: string): Promise<CallerReach> {
    const auth = authOf(record.data);
    const name = String(record.data.name);
    if (auth.type === 'static') return { ok: true, server: toServer(record), secrets: [], listKey: listKeyOf(record) };
    if (auth.type !== 'user_secret') {
      return { ok: false, shown: `The MCP server ${name} uses ${auth.type} auth, which keygate cannot use yet: it is not contacted` };
    }
    const opened = this.connections && (await this.connections.openSecret(callerId, record.id));
    if (!opened) {
      const connectUrl = this.connectUrl(record.id);
      return {
        ok: false,
        shown: `The MCP server ${name} needs your own credential: connect to it at ${connectUrl}, then call again`,
        connectUrl,
      };
    }
    const server = toServer(record, { perUser: true });
    const value = (auth.prefix ?? '') + opened.secret;
    const others = Object.entries(server.headers).filter(([header]) => header.toLowerCase() !== auth.header.toLowerCase());
    const { connection } = opened;
    return {
      ok: true,
      server: { ...server, headers: { ...Object.fromEntries(others), [auth.header]: value } },
      secrets: [value, opened.secret],
      // The caller's own listing, made with their credential, gone when they reconnect or disconnect.
      listKey: `${listKeyOf(record)} ${callerId} ${connection.id}@${connection.updatedAt.toISOString()}`,
    };
  }
}

/** Where a record's shared tool listing is cached: its id and version, so an edited record is a new entry. */
export function listKeyOf(record: ResourceRecord): string {
  return `${record.id}@${record.updatedAt.toISOString()}`;
}
