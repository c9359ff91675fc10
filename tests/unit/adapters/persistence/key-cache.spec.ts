import { KEY_CHANGES_CHANNEL } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { KeyCache } from '../../../../src/adapters/persistence/hot-path/key-cache';
import { ApiKey } from '../../../../src/domain/api-key';
import { ApiKeyMother } from '../../../mothers/api-key.mother';

function key(overrides: { revokedAt?: Date | null } = {}): ApiKey {
  return ApiKeyMother.active({ revokedAt: overrides.revokedAt ?? null });
}

function enabledCache(size = 3): KeyCache {
  const cache = new KeyCache(size);
  cache.enable();
  return cache;
}

/** A lookup that misses and finds `found` in the database. */
const fill = (cache: KeyCache, hash: string, found: ApiKey | null) => cache.load(hash, async () => found);

describe('KeyCache', () => {
  it('listens on the key-changes channel', () => {
    expect(new KeyCache(1).channel).toBe(KEY_CHANGES_CHANNEL);
  });

  it('serves nothing until enabled, and forgets everything when disabled', async () => {
    const cache = new KeyCache(10);
    const k = key();
    expect(await fill(cache, 'h', k)).toBe(k);
    expect(cache.get('h')).toBeUndefined();
    cache.enable();
    await fill(cache, 'h', k);
    expect(cache.get('h')).toBe(k);
    cache.disable();
    expect(cache.get('h')).toBeUndefined();
    cache.enable();
    expect(cache.get('h')).toBeUndefined();
  });

  it('stays within its bound, dropping the least recently used entry', async () => {
    const cache = enabledCache(3);
    const keys = [key(), key(), key(), key()];
    await fill(cache, 'a', keys[0]);
    await fill(cache, 'b', keys[1]);
    await fill(cache, 'c', keys[2]);
    cache.get('a'); // a is now the most recent
    await fill(cache, 'd', keys[3]);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(keys[0]);
    expect(cache.get('d')).toBe(keys[3]);
  });

  it('evicts by key id, as change notifications name keys by id', async () => {
    const cache = enabledCache();
    const [k, other] = [key(), key()];
    await fill(cache, 'h', k);
    await fill(cache, 'o', other);
    cache.evict(k.id);
    expect(cache.get('h')).toBeUndefined();
    expect(cache.get('o')).toBe(other);
    expect(cache.size).toBe(1);
  });

  it('still evicts by id a key that the bound pushed out and that came back', async () => {
    const cache = enabledCache(1);
    const [k, other] = [key(), key()];
    await fill(cache, 'h', k);
    await fill(cache, 'o', other); // pushes k out
    await fill(cache, 'h', k);
    cache.evict(k.id);
    expect(cache.size).toBe(0);
  });

  it('forgets every key on `*`, sent when the table is truncated, and refuses loads that began before', async () => {
    const cache = enabledCache();
    const [a, b] = [key(), key()];
    await fill(cache, 'a', a);
    await cache.load('b', async () => {
      cache.evict('*');
      return b;
    });
    expect(cache.size).toBe(0);
    expect(cache.get('b')).toBeUndefined();
  });

  it('refuses an entry read before an invalidation that happened while it was in flight', async () => {
    const cache = enabledCache();
    const k = key();
    // The revocation lands while the lookup is still reading the old row.
    expect(await cache.load('h', async () => (cache.evict(k.id), k))).toBe(k);
    expect(cache.get('h')).toBeUndefined();
    await fill(cache, 'h', k);
    expect(cache.get('h')).toBe(k);
  });

  it('never stores a revoked or unknown key', async () => {
    const cache = enabledCache();
    await fill(cache, 'h', key({ revokedAt: new Date() }));
    expect(await fill(cache, 'u', null)).toBeNull();
    expect(cache.get('h')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
