import { NO_ORIGIN } from '../../../../domain/audit';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Clock } from '../../../ports/clock.port';
import { McpConnectionStore, OpenedGrant } from '../../../ports/mcp-connection-store.port';
import { UnitOfWork } from '../../../ports/unit-of-work.port';
import { UpstreamAuthorization, UpstreamAuthorizationError } from '../../../ports/upstream-authorization.port';
import { AccessTokens, UsableToken } from './access-tokens';
import { serverEvent } from './mcp-server-audit';

export interface RefreshOptions {
  /** A token this close to its expiry is refreshed before it is sent. */
  marginMs: number;
  /** How long one replica's claim on a refresh holds before another may take it over. */
  claimSeconds: number;
  /** How long a call waits for another replica's refresh: the call's own deadline. */
  waitMs: number;
  /** Between reads of the connection while another replica refreshes. */
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
}

export const REFRESH_DEFAULTS: Omit<RefreshOptions, 'waitMs'> = {
  marginMs: 60_000,
  claimSeconds: 30,
  pollMs: 100,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The caller's access token, refreshed first when it expires within a minute:
 * once across replicas (the store's claim on the row: whoever takes it calls
 * the authorization server, the others read the row until it is done, bounded
 * by the call's deadline), and once per process (concurrent calls share one
 * promise per connection). The rotated refresh token replaces the old one. A
 * refused refresh (the grant revoked or expired) marks the connection failed
 * with `mcp_connection.failed`, and the call answers as without a connection.
 * `mcp_connection.refreshed` is recorded at most once an hour per connection.
 */
export class RefreshingAccessTokens implements AccessTokens {
  private readonly inFlight = new Map<string, Promise<UsableToken | null>>();

  constructor(
    private readonly connections: McpConnectionStore,
    private readonly authorization: UpstreamAuthorization,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly options: RefreshOptions,
  ) {}

  async open(userId: string, server: ResourceRecord): Promise<UsableToken | null> {
    const opened = await this.connections.openGrant(userId, server.id);
    if (!opened) return null;
    if (this.fresh(opened)) return usable(opened);
    const key = opened.connection.id;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.refresh(userId, server, opened).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * Not within the margin of its expiry. The margin is at most half the token's lifetime (from when the set was
   * stored, the connection's updatedAt): a token issued for less than two margins would otherwise be refreshed on
   * every call.
   */
  private fresh({ grant, connection }: OpenedGrant): boolean {
    const expiresAt = grant.tokens.expiresAt;
    if (expiresAt === undefined) return true;
    const lifetime = expiresAt.getTime() - connection.updatedAt.getTime();
    const margin = Math.min(this.options.marginMs, Math.max(0, lifetime / 2));
    return expiresAt.getTime() - this.clock.now().getTime() > margin;
  }

  private async refresh(userId: string, server: ResourceRecord, opened: OpenedGrant): Promise<UsableToken | null> {
    const { connection, grant } = opened;
    if (grant.tokens.refreshToken === undefined) return usable(opened);
    if (!(await this.connections.claimRefresh(connection.id, this.options.claimSeconds))) return this.awaitOther(userId, server, opened);
    // Another replica may have refreshed between this call's read and its claim (a save ends a claim). Its rotated
    // refresh token replaced the one read here, and sending the used one would have the authorization server refuse,
    // and revoke, the whole grant.
    const current = await this.connections.openGrant(userId, server.id);
    if (!current || current.connection.id !== connection.id || current.grant.tokens.refreshToken !== grant.tokens.refreshToken) {
      await this.connections.releaseRefresh(connection.id);
      return current && usable(current);
    }
    let tokens;
    try {
      tokens = await this.authorization.refresh({
        authorizationServer: grant.authorizationServer,
        client: grant.client,
        refreshToken: grant.tokens.refreshToken,
        resource: grant.resource,
      });
    } catch (error) {
      if (error instanceof UpstreamAuthorizationError && error.code === 'grant_refused') return this.fail(userId, server);
      // Unreachable or slow: the next call tries again; this one sends what it has.
      await this.connections.releaseRefresh(connection.id);
      return usable(opened);
    }
    const refreshed = { ...grant, tokens };
    return this.work.run(async ({ connections, audit }) => {
      const saved = await connections.saveRefreshed(connection.id, userId, server.id, refreshed);
      if (!saved) return null;
      if (saved.audit) await audit.append([serverEvent('mcp_connection.refreshed', changerOf(userId), server, this.clock.now())]);
      return { connection: saved.connection, token: tokens.accessToken };
    });
  }

  /** Another replica refreshes: read the row until its token is fresh or it is no longer usable, within the call's deadline. */
  private async awaitOther(userId: string, server: ResourceRecord, before: OpenedGrant): Promise<UsableToken | null> {
    const until = this.clock.now().getTime() + this.options.waitMs;
    while (this.clock.now().getTime() < until) {
      await this.options.sleep(this.options.pollMs);
      const now = await this.connections.openGrant(userId, server.id);
      if (!now || now.connection.id !== before.connection.id) return now && usable(now);
      if (now.grant.tokens.accessToken !== before.grant.tokens.accessToken || this.fresh(now)) return usable(now);
    }
    return usable(before);
  }

  private async fail(userId: string, server: ResourceRecord): Promise<null> {
    await this.work.run(async ({ connections, audit }) => {
      if (await connections.markFailed(userId, server.id))
        await audit.append([serverEvent('mcp_connection.failed', changerOf(userId), server, this.clock.now())]);
    });
    return null;
  }
}

function usable({ connection, grant }: OpenedGrant): UsableToken {
  return { connection, token: grant.tokens.accessToken };
}

/** The connection's own user: a refresh happens on their call. */
function changerOf(userId: string) {
  return { userId, keyId: null, actor: { type: 'user' as const, id: userId }, origin: NO_ORIGIN };
}
