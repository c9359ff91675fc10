import { randomUUID } from 'node:crypto';
import { KeyCache } from '../../../../src/adapters/persistence/hot-path/key-cache';
import { ApiKey } from '../../../../src/domain/api-key';
import { ScopeSet } from '../../../../src/domain/scope';

function key(overrides: { revokedAt?: Date | null } = {}): ApiKey {
  return ApiKey.restore({
    id: randomUUID(),
    name: 'k',
    keyPrefix: 'svc_abcd',
    keyHash: randomUUID(),
    userId: randomUUID(),
    scopes: ScopeSet.full(),
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: overrides.revokedAt ?? null,
    createdAt: new Date(),
  });
}

function enabledCache(size = 3): KeyCache {
  const cache = new KeyCache(size);
  cache.enable();
  return cache;
}

describe('KeyCache', () => {
  it('serves nothing until enabled, and forgets everything when disabled', () => {
    const cache = new KeyCache(10);
    const k = key();
    cache.set('h', k, cache.generation);
    expect(cache.get('h')).toBeUndefined();
    cache.enable();
    cache.set('h', k, cache.generation);
    expect(cache.get('h')).toBe(k);
    cache.disable();
    expect(cache.get('h')).toBeUndefined();
    cache.enable();
    expect(cache.get('h')).toBeUndefined();
  });

  it('stays within its bound, dropping the least recently used entry', () => {
    const cache = enabledCache(3);
    const keys = [key(), key(), key(), key()];
    cache.set('a', keys[0], cache.generation);
    cache.set('b', keys[1], cache.generation);
    cache.set('c', keys[2], cache.generation);
    cache.get('a'); // a is now the most recent
    cache.set('d', keys[3], cache.generation);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(keys[0]);
    expect(cache.get('d')).toBe(keys[3]);
  });

  it('evicts by key id, as change notifications name keys by id', () => {
    const cache = enabledCache();
    const k = key();
    cache.set('h', k, cache.generation);
    cache.evict(k.id);
    expect(cache.get('h')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets every key on `*`, sent when the table is truncated', () => {
    const cache = enabledCache();
    const [a, b] = [key(), key()];
    cache.set('a', a, cache.generation);
    const before = cache.generation;
    cache.set('b', b, before);
    cache.evict('*');
    expect(cache.size).toBe(0);
    cache.set('b', b, before);
    expect(cache.get('b')).toBeUndefined();
  });

  it('refuses an entry read before an invalidation that happened while it was in flight', () => {
    const cache = enabledCache();
    const k = key();
    const before = cache.generation;
    cache.evict(k.id); // the revocation lands while the lookup is still reading the old row
    cache.set('h', k, before);
    expect(cache.get('h')).toBeUndefined();
    cache.set('h', k, cache.generation);
    expect(cache.get('h')).toBe(k);
  });

  it('never stores a revoked key', () => {
    const cache = enabledCache();
    cache.set('h', key({ revokedAt: new Date() }), cache.generation);
    expect(cache.get('h')).toBeUndefined();
  });
});
