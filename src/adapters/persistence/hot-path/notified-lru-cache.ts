import { LRUCache } from 'lru-cache';
import { NotifiedCache } from './change-listener';

/** The payload that names every entry: PostgreSQL sends it for a TRUNCATE. */
export const EVERY_ENTRY = '*';

export interface NotifiedLruCacheOptions<K, V> {
  channel: string;
  /** At most this many entries, least recently used out first; 0 caches nothing. */
  maxEntries: number;
  /**
   * What a change notification calls an entry, when not its cache key (a key
   * cached by hash is named by its id). Several entries may share a name.
   */
  nameOf?: (key: K, value: V) => string;
  /** Values loaded but not worth keeping (a revoked key). */
  keep?: (value: V) => boolean;
  /**
   * How long entries kept before the listener dropped are still served while
   * it is away (a database failover); 0 stops serving them at once.
   */
  staleAfterMs?: number;
}

/**
 * A bounded LRU (lru-cache) that is trusted only while change notifications
 * can reach it: it serves nothing until the change listener enables it, and
 * starts empty each time, since a notification may have been missed while off.
 * Every eviction moves an epoch on, so a load that began before an eviction
 * cannot store the row it read, which may be the stale one.
 *
 * With `staleAfterMs`, losing the listener does not empty the cache at once:
 * what was kept before the drop is served for that long (cached keys keep
 * validating through a failover) but nothing new is kept, and when the
 * listener is back the cache starts empty, since changes made in the gap
 * were never heard.
 */
export class NotifiedLruCache<K extends string, V extends object> implements NotifiedCache {
  readonly channel: string;
  readonly maxEntries: number;
  private readonly lru: LRUCache<K, V>;
  /**
   * Cache keys by name, kept only when names are not the cache keys. A name
   * almost always has one entry, held as is: an array each would add ~30
   * bytes to every cached key.
   */
  private readonly keysByName: Map<string, K | K[]> | null;
  private epoch = 0;
  private enabled = false;
  /** Whether loads may be kept: only while notifications can reach this cache. */
  private listening = false;
  /** While the listener is away, when what is kept stops being served; 0 while it is up. */
  private staleAt = 0;

  constructor(private readonly options: NotifiedLruCacheOptions<K, V>) {
    this.channel = options.channel;
    this.maxEntries = options.maxEntries;
    const { nameOf } = options;
    this.keysByName = nameOf ? new Map() : null;
    this.lru = new LRUCache<K, V>({
      max: Math.max(1, options.maxEntries),
      dispose: nameOf ? (value, key) => this.unname(nameOf(key, value), key) : undefined,
    });
  }

  get size(): number {
    return this.lru.size;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  get(key: K): V | undefined {
    if (!this.enabled) return undefined;
    if (this.staleAt !== 0 && Date.now() >= this.staleAt) return void this.turnOff();
    return this.lru.get(key);
  }

  /**
   * For a miss: calls `load` and keeps what it finds, unless the cache was
   * off or evicted anything meanwhile. Null (not found) is never kept.
   */
  async load<F extends V | null>(key: K, load: () => Promise<F>): Promise<F> {
    const epoch = this.epoch;
    const value = await load();
    if (value !== null && this.listening && epoch === this.epoch && (this.options.keep?.(value) ?? true)) this.store(key, value);
    return value;
  }

  /** Drops the entries a notification names (`*`: all of them). */
  evict(name: string): void {
    if (name === EVERY_ENTRY) return this.clear();
    this.epoch += 1;
    if (this.keysByName === null) return void this.lru.delete(name as K);
    for (const key of asArray(this.keysByName.get(name))) this.lru.delete(key);
  }

  /** Forget everything, e.g. when notifications may have been missed. */
  clear(): void {
    this.epoch += 1;
    this.keysByName?.clear(); // first, so that the disposals clearing calls find nothing to unname
    this.lru.clear();
  }

  enable(): void {
    this.clear();
    this.enabled = this.maxEntries > 0;
    this.listening = this.enabled;
    this.staleAt = 0;
  }

  /** The listener is away: stop keeping, and stop serving now or once `staleAfterMs` has passed since the first drop. */
  disable(): void {
    this.listening = false;
    const staleAfterMs = this.options.staleAfterMs ?? 0;
    if (!this.enabled || staleAfterMs <= 0) return this.turnOff();
    if (this.staleAt === 0) this.staleAt = Date.now() + staleAfterMs;
  }

  private turnOff(): void {
    this.enabled = false;
    this.listening = false;
    this.staleAt = 0;
    this.clear();
  }

  private store(key: K, value: V): void {
    this.lru.set(key, value);
    const name = this.options.nameOf?.(key, value);
    if (name === undefined || this.keysByName === null) return;
    const keys = this.keysByName.get(name);
    if (keys === undefined) this.keysByName.set(name, key);
    else if (!asArray(keys).includes(key)) this.keysByName.set(name, [...asArray(keys), key]);
  }

  private unname(name: string, key: K): void {
    const keys = this.keysByName?.get(name);
    if (keys === undefined) return;
    const rest = asArray(keys).filter((k) => k !== key);
    if (rest.length === 0) this.keysByName!.delete(name);
    else this.keysByName!.set(name, rest.length === 1 ? rest[0] : rest);
  }
}

function asArray<K>(keys: K | K[] | undefined): K[] {
  if (keys === undefined) return [];
  return Array.isArray(keys) ? keys : [keys];
}
