import { Client } from 'pg';

/**
 * Any change to a key's row (migration 1763900000005). The name is from when
 * only revocations were sent; it is kept so that replicas of an older release
 * keep hearing revocations during a rolling deploy.
 */
export const KEY_CHANGES_CHANNEL = 'keygate_key_revoked';
export const MCP_SERVERS_CHANNEL = 'keygate_mcp_servers_changed';
/** Any change to the built-in tools' rules (migration 1763900000021). */
export const TOOL_RULES_CHANNEL = 'keygate_tool_rules_changed';
/** How the listener's connection shows in pg_stat_activity: its last query is a heartbeat, not its LISTEN. */
export const LISTENER_APPLICATION_NAME = 'keygate change listener';

/** A cache that is only trusted while change notifications can reach it. */
export interface NotifiedCache {
  channel: string;
  /** Drops what the payload (a key id, an owner id) names. */
  evict(payload: string): void;
  enable(): void;
  disable(): void;
}

/** Heartbeat intervals a `SELECT 1` may go unanswered before the connection counts as lost. */
export const HEARTBEAT_MISSES = 5;

export interface ChangeListenerOptions {
  url: string;
  /** Longest wait between reconnection attempts. */
  maxBackoffMs?: number;
  /**
   * How often the connection is asked to answer a `SELECT 1`; one not answered
   * within HEARTBEAT_MISSES asks counts as a lost connection. A failover can leave the
   * socket silent rather than closed (a server gone from the network), and a
   * listener that does not notice would trust its caches while notifications go
   * nowhere. 0 turns it off.
   */
  heartbeatMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/**
 * Keeps the in-memory caches honest across replicas: every change to a key's
 * row but its last_used_at, and every change to a user's MCP servers, from
 * any replica or straight in SQL, arrives as a NOTIFY from a table trigger.
 * Without a live connection a notification could be missed, so the caches are
 * told (disable) until the listener is back, and then start empty; a
 * heartbeat finds a connection that went silent instead of closing.
 */
export class ChangeListener {
  private client: Client | null = null;
  private stopped = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly caches: NotifiedCache[],
    private readonly options: ChangeListenerOptions,
  ) {}

  /** Resolves once listening, or after the first failed attempt (it keeps retrying). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.stopHeartbeat();
    this.setListening(false);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: 3000,
      keepAlive: true,
      application_name: LISTENER_APPLICATION_NAME,
    });
    client.on('notification', ({ channel, payload }) => {
      if (payload) for (const cache of this.caches) if (cache.channel === channel) cache.evict(payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of new Set(this.caches.map((c) => c.channel))) await client.query(`LISTEN ${channel}`);
      if (this.stopped) return void (await client.end());
      this.client = client;
      this.backoffMs = 100;
      this.setListening(true);
      this.startHeartbeat(client);
    } catch (error) {
      this.lost(client, error);
    }
  }

  private setListening(on: boolean): void {
    for (const cache of this.caches) {
      if (on) cache.enable();
      else cache.disable();
    }
  }

  private startHeartbeat(client: Client): void {
    const everyMs = this.options.heartbeatMs ?? 1000;
    if (everyMs <= 0) return;
    // Asks since the last answer: a busy replica or database answers late, and a false loss drops the notifications on the way.
    let unanswered = 0;
    this.heartbeat = setInterval(() => {
      if (unanswered >= HEARTBEAT_MISSES)
        return this.lost(client, new Error(`no answer to a heartbeat within ${HEARTBEAT_MISSES * everyMs} ms`));
      if (unanswered++ > 0) return;
      client.query('SELECT 1').then(
        () => (unanswered = 0),
        (error: unknown) => this.lost(client, error),
      );
    }, everyMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private lost(client: Client, error?: unknown): void {
    if (this.client !== null && this.client !== client) return;
    if (this.client === client) this.stopHeartbeat();
    this.client = null;
    this.setListening(false);
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    this.options.log?.('change listener lost its connection; caches stale until it is back', error);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5000);
  }
}
