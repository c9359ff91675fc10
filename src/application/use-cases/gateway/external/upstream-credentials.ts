import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { McpConnection } from '../../../../domain/connection/mcp-connection';
import { McpConnectionStore } from '../../../ports/mcp-connection-store.port';
import { AccessTokens, StoredAccessTokens } from './access-tokens';
import { UpstreamAuthorizationError } from '../../../ports/upstream-authorization.port';
import { UpstreamServer } from '../../../ports/upstream-mcp.port';
import { ExchangedTokens, TokenExchangeAuth } from './exchanged-tokens';
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

/** Who an upstream request is for: the user whose own credential a per-user server takes, and the OAuth access token they came with (secret; none for a key). */
export interface UpstreamCaller {
  userId: string;
  subjectToken?: string;
}

/** Where a user connects to a server: the console's connect page for it. */
export type ConnectUrl = (serverId: string) => string;

/**
 * The credentials a caller's upstream requests carry. A `static` server is
 * reached with its record's headers, as ever. A `user_secret` server with
 * `header: prefix + secret` of THE CALLER's own connection, added to the
 * record's headers (it replaces one of the same name); never with anyone
 * else's, and not at all without one. An `oauth` server with
 * `Authorization: Bearer` and the access token of the caller's own
 * connection (AccessTokens refreshes it near its expiry). A `token_exchange`
 * server with `Authorization: Bearer` and a token exchanged from the
 * caller's own OAuth access token (the subject token), when they came with
 * one; a key caller has none, and is told so. One indexed read of the
 * connection per call; exchanged tokens are kept until shortly before expiry.
 */
export class UpstreamCredentials {
  constructor(
    private readonly connections: McpConnectionStore | null,
    private readonly connectUrl: ConnectUrl,
    /** The caller's usable access token of an oauth connection (refreshed when near its expiry); none reads it straight. */
    private readonly accessTokens: AccessTokens = new StoredAccessTokens(connections),
    /** Without it, token_exchange servers are not contacted. */
    private readonly exchanged: ExchangedTokens | null = null,
  ) {}

  /**
   * `subjectToken`: the OAuth access token the caller came with (secret), absent for a key.
   * Throws what toServer throws for a record that cannot be used (its secrets did not decrypt),
   * and an UpstreamRefusal when the guard refuses a token_exchange server's token endpoint.
   */
  async reach(record: ResourceRecord, callerId: string, subjectToken?: string): Promise<CallerReach> {
    const auth = authOf(record.data);
    if (auth.type === 'static') return { ok: true, server: toServer(record), secrets: [], listKey: listKeyOf(record) };
    if (auth.type === 'oauth') {
      const opened = this.connections && (await this.accessTokens.open(callerId, record));
      if (!opened) return this.notConnected(record);
      return reachWith(record, 'Authorization', 'Bearer ', opened.token, connectionListKey(record, callerId, opened.connection));
    }
    if (auth.type === 'token_exchange') return this.exchange(record, auth, callerId, subjectToken);
    const opened = this.connections && (await this.connections.openSecret(callerId, record.id));
    if (!opened) return this.notConnected(record);
    return reachWith(record, auth.header, auth.prefix ?? '', opened.secret, connectionListKey(record, callerId, opened.connection));
  }

  /** Nothing to connect when it fails: a key has no token to exchange, and a refused exchange names the server and a short code only. */
  private async exchange(record: ResourceRecord, auth: TokenExchangeAuth, callerId: string, subjectToken?: string): Promise<CallerReach> {
    const name = String(record.data.name);
    if (subjectToken === undefined)
      return {
        ok: false,
        shown: `The MCP server ${name} takes the caller's own OAuth access token (token_exchange auth), and an API key has none: call it with an OAuth access token on /mcp`,
      };
    if (this.exchanged === null)
      return { ok: false, shown: `The MCP server ${name} uses token_exchange auth, which is not set up here: it is not contacted` };
    let token: string;
    try {
      token = await this.exchanged.open(record, auth, subjectToken);
    } catch (error) {
      if (!(error instanceof UpstreamAuthorizationError)) throw error;
      return {
        ok: false,
        shown: `The MCP server ${name} was not contacted: the token exchange at its authorization server failed (${exchangeCode(error)})`,
      };
    }
    // The caller's own listing, made with a token of theirs: one per user, as for a connection.
    return reachWith(record, 'Authorization', 'Bearer ', token, `${listKeyOf(record)} ${callerId} token_exchange`);
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
function reachWith(record: ResourceRecord, header: string, prefix: string, secret: string, listKey: string): CallerReach {
  const server = toServer(record, { perUser: true });
  const value = prefix + secret;
  const others = Object.entries(server.headers).filter(([name]) => name.toLowerCase() !== header.toLowerCase());
  return {
    ok: true,
    server: { ...server, headers: { ...Object.fromEntries(others), [header]: value } },
    secrets: [value, secret],
    listKey,
  };
}

/** The caller's own listing, made with their credential, gone when they reconnect or disconnect. */
function connectionListKey(record: ResourceRecord, callerId: string, connection: McpConnection): string {
  return `${listKeyOf(record)} ${callerId} ${connection.id}@${connection.updatedAt.toISOString()}`;
}

/** The port's stable code, with the authorization server's own `error` when it is a plain OAuth error code; never its description. */
function exchangeCode(error: UpstreamAuthorizationError): string {
  const said = error.oauthError;
  return said !== undefined && /^[a-z0-9_]{1,40}$/i.test(said) ? `${error.code}: ${said}` : error.code;
}

/** Where a record's shared tool listing is cached: its id and version, so an edited record is a new entry. */
export function listKeyOf(record: ResourceRecord): string {
  return `${record.id}@${record.updatedAt.toISOString()}`;
}
