import { Client } from 'pg';
import { KeyCache } from './key-cache';

export const REVOCATION_CHANNEL = 'keygate_key_revoked';

export interface RevocationListenerOptions {
  url: string;
  /** Longest wait between reconnection attempts. */
  maxBackoffMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/**
 * Keeps the key cache honest across replicas: every revocation, from any
 * replica, arrives as a NOTIFY from the api_keys trigger and evicts the key.
 * Without a live connection a notification could be missed, so the cache is
 * switched off until the listener is back, then starts empty.
 */
export class RevocationListener {
  private client: Client | null = null;
  private stopped = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly cache: KeyCache,
    private readonly options: RevocationListenerOptions,
  ) {}

  get isListening(): boolean {
    return this.cache.isEnabled;
  }

  /** Resolves once listening, or after the first failed attempt (it keeps retrying). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.cache.disable();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.url, connectionTimeoutMillis: 3000, keepAlive: true });
    client.on('notification', (message) => {
      if (message.channel === REVOCATION_CHANNEL && message.payload) this.cache.evictId(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      if (this.stopped) return void (await client.end());
      this.client = client;
      this.backoffMs = 100;
      this.cache.enable();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: Client, error?: unknown): void {
    if (this.client !== null && this.client !== client) return;
    this.client = null;
    this.cache.disable();
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    this.options.log?.('revocation listener lost its connection; key cache off until it is back', error);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5000);
  }
}
