import { ApiKey } from '../../../domain/api-key';
import { KEY_CHANGES_CHANNEL } from './change-listener';
import { NotifiedLruCache } from './notified-lru-cache';

/**
 * Positive key lookups by hash. Only keys that exist and are not revoked are
 * kept, so a flood of unknown keys can neither grow it nor evict real
 * entries. Change notifications name keys by id (`*` for a TRUNCATE).
 */
export class KeyCache extends NotifiedLruCache<string, ApiKey> {
  constructor(maxEntries: number) {
    super({ channel: KEY_CHANGES_CHANNEL, maxEntries, nameOf: (_hash, key) => key.id, keep: (key) => key.revokedAt === null });
  }
}
