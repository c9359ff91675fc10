import { ApiKey } from '../../../domain/api-key';
import { KEY_CHANGES_CHANNEL, NotifiedCache } from './change-listener';

const ALL_KEYS = '*';

/**
 * Positive key lookups by hash, least recently used first out. Only keys that
 * exist are cached, so a flood of unknown keys can neither grow it nor evict
 * real entries. It serves nothing while `enabled` is false: that is the state
 * until the change listener is connected, and after it loses the connection.
 */
export class KeyCache implements NotifiedCache {
  readonly channel = KEY_CHANGES_CHANNEL;
  private readonly byHash = new Map<string, ApiKey>();
  private readonly hashById = new Map<string, string>();
  private epoch = 0;
  private enabled = false;

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.byHash.size;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** A token to pass to `set`: an entry read before an invalidation must not be stored after it. */
  get generation(): number {
    return this.epoch;
  }

  get(hash: string): ApiKey | undefined {
    if (!this.enabled) return undefined;
    const key = this.byHash.get(hash);
    if (key) {
      this.byHash.delete(hash);
      this.byHash.set(hash, key);
    }
    return key;
  }

  set(hash: string, key: ApiKey, generation: number): void {
    if (!this.enabled || generation !== this.epoch || key.revokedAt !== null) return;
    this.byHash.delete(hash);
    this.byHash.set(hash, key);
    this.hashById.set(key.id, hash);
    while (this.byHash.size > this.maxEntries) {
      const [oldestHash, oldest] = this.byHash.entries().next().value as [string, ApiKey];
      this.byHash.delete(oldestHash);
      this.hashById.delete(oldest.id);
    }
  }

  /** Drops the key with this id (changes name keys by id; `*`, sent for TRUNCATE, names them all). */
  evict(id: string): void {
    if (id === ALL_KEYS) return this.clear();
    this.epoch += 1;
    const hash = this.hashById.get(id);
    if (hash === undefined) return;
    this.hashById.delete(id);
    this.byHash.delete(hash);
  }

  /** Forget everything, e.g. when notifications may have been missed. */
  clear(): void {
    this.epoch += 1;
    this.byHash.clear();
    this.hashById.clear();
  }

  enable(): void {
    this.clear();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.clear();
  }
}
