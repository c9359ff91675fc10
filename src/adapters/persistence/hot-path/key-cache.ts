import { ApiKey } from '../../../domain/api-key';
import { CachedKey, fromCachedKey, toCachedKey } from './cached-key';
import { KEY_CHANGES_CHANNEL, NotifiedCache } from './change-listener';
import { NotifiedLruCache } from './notified-lru-cache';
import { ScopeSetInterner } from './scope-set-interner';

/**
 * Positive key lookups by hash. Only keys that exist and are not revoked are
 * kept, so a flood of unknown keys can neither grow it nor evict real
 * entries. Change notifications name keys by id (`*` for a TRUNCATE).
 *
 * Entries are compact records (cached-key.ts), not ApiKeys, so that 100,000
 * keys fit in a small heap; each hit gives back a fresh ApiKey.
 */
export class KeyCache implements NotifiedCache {
  readonly channel = KEY_CHANGES_CHANNEL;
  private readonly entries: NotifiedLruCache<string, CachedKey>;
  private readonly scopeSets = new ScopeSetInterner();

  /** `staleAfterMs`: how long keys cached before the change listener dropped are still served (see NotifiedLruCache). */
  constructor(
    readonly maxEntries: number,
    staleAfterMs = 0,
  ) {
    this.entries = new NotifiedLruCache({ channel: KEY_CHANGES_CHANNEL, maxEntries, staleAfterMs, nameOf: (_hash, key) => key.id });
  }

  get size(): number {
    return this.entries.size;
  }

  get isEnabled(): boolean {
    return this.entries.isEnabled;
  }

  get(keyHash: string): ApiKey | undefined {
    const cached = this.entries.get(keyHash);
    return cached && fromCachedKey(keyHash, cached);
  }

  /** For a miss: calls `load` and keeps a usable-looking key it finds (see NotifiedLruCache.load). */
  async load(keyHash: string, load: () => Promise<ApiKey | null>): Promise<ApiKey | null> {
    let found: ApiKey | null = null;
    await this.entries.load(keyHash, async () => {
      found = await load();
      return found && found.revokedAt === null ? toCachedKey(found, this.scopeSets.intern(found.scopes)) : null;
    });
    return found;
  }

  evict(name: string): void {
    this.entries.evict(name);
  }

  clear(): void {
    this.entries.clear();
  }

  enable(): void {
    this.entries.enable();
  }

  disable(): void {
    this.entries.disable();
  }
}
