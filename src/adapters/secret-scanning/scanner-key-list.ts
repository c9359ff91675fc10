import { KeyObject } from 'node:crypto';
import { fetchBounded } from '../outbound/bounded-fetch';
import { parsePublicKeyList } from './public-key-list';

export interface ScannerKeyListOptions {
  /** Where the scanner publishes its keys (SECRET_SCANNING_KEYS_URL). */
  url: string;
  timeoutMs: number;
  maxBytes: number;
  maxKeys: number;
  /** The least time between two fetches: forged identifiers cannot make the service hammer the scanner. */
  refetchIntervalMs: number;
  /** Past this age the list is fetched again in the background, so a key the scanner withdrew stops being accepted. */
  maxAgeMs: number;
  now: () => number;
  /** A fetch failed (the cached keys stay in use) or left entries out. */
  warn: (message: string, error?: unknown) => void;
}

export type KeyLookup = { found: KeyObject } | { missing: true } | { unavailable: true; retryAfterSeconds: number };

/**
 * The scanner's public keys, fetched when first needed and kept. An
 * identifier not in the list makes it fetch the list again (at most once per
 * refetchIntervalMs, and one fetch at a time, which every caller waits for);
 * a failed fetch keeps the keys it had.
 */
export class ScannerKeyList {
  private keys = new Map<string, KeyObject>();
  private fetchedAt: number | null = null;
  private attemptedAt = -Infinity;
  private inFlight: Promise<void> | null = null;

  constructor(private readonly options: ScannerKeyListOptions) {}

  async keyFor(identifier: string): Promise<KeyLookup> {
    const known = this.keys.get(identifier);
    if (known) {
      if (this.fetchedAt !== null && this.options.now() - this.fetchedAt >= this.options.maxAgeMs) void this.refetch();
      return { found: known };
    }
    await this.refetch();
    const fetched = this.keys.get(identifier);
    if (fetched) return { found: fetched };
    if (this.fetchedAt === null) return { unavailable: true, retryAfterSeconds: this.secondsUntilNextFetch() };
    return { missing: true };
  }

  /** Joins the fetch under way, or starts one if the interval allows; never throws. */
  private refetch(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const now = this.options.now();
    if (now - this.attemptedAt < this.options.refetchIntervalMs) return Promise.resolve();
    this.attemptedAt = now;
    this.inFlight = this.fetchList()
      .then(
        (keys) => {
          this.keys = keys;
          this.fetchedAt = now;
        },
        (error: unknown) => this.options.warn('secret scanning: fetching the public key list failed; keeping the keys held', error),
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async fetchList(): Promise<Map<string, KeyObject>> {
    const { url, timeoutMs, maxBytes, maxKeys } = this.options;
    const text = await fetchBounded(url, { what: 'the key list', timeoutMs, maxBytes });
    const { keys, skipped } = parsePublicKeyList(text, maxKeys);
    if (skipped.length > 0)
      this.options.warn(`secret scanning: left out key list entries that are not ECDSA P-256 public keys: ${skipped.join(', ')}`);
    return keys;
  }

  private secondsUntilNextFetch(): number {
    const waitMs = this.attemptedAt + this.options.refetchIntervalMs - this.options.now();
    return Math.max(1, Math.ceil(waitMs / 1000));
  }
}
