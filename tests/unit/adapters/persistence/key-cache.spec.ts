import { KEY_CHANGES_CHANNEL } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { KeyCache } from '../../../../src/adapters/persistence/hot-path/key-cache';
import { ApiKey, ApiKeyProps } from '../../../../src/domain/api-key';
import { ApiKeyMother, KEY_EPOCH } from '../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

function key(overrides: Partial<ApiKeyProps> = {}): ApiKey {
  return ApiKeyMother.active(overrides);
}

function enabledCache(size = 3): KeyCache {
  const cache = new KeyCache(size);
  cache.enable();
  return cache;
}

/** A lookup of a key by its hash that misses and finds `found` in the database. */
const fill = (cache: KeyCache, found: ApiKey) => cache.load(found.keyHash, async () => found);
/** What a hit gives back, by the key's own hash. */
const hit = (cache: KeyCache, k: ApiKey) => cache.get(k.keyHash);

describe('KeyCache', () => {
  it('serves the keys it held for staleAfterMs once the listener drops (a failover), then nothing', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const cache = new KeyCache(10, 5000);
      cache.enable();
      const k = key();
      await fill(cache, k);
      cache.disable();
      expect(hit(cache, k)).toEqual(k);
      jest.advanceTimersByTime(5000);
      expect(hit(cache, k)).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it('listens on the key-changes channel', () => {
    expect(new KeyCache(1).channel).toBe(KEY_CHANGES_CHANNEL);
  });

  it('serves nothing until enabled, and forgets everything when disabled', async () => {
    const cache = new KeyCache(10);
    const k = key();
    expect(await fill(cache, k)).toBe(k);
    expect(hit(cache, k)).toBeUndefined();
    cache.enable();
    await fill(cache, k);
    expect(hit(cache, k)).toEqual(k);
    cache.disable();
    expect(hit(cache, k)).toBeUndefined();
    cache.enable();
    expect(hit(cache, k)).toBeUndefined();
  });

  it('gives back on a hit a key equal to the one loaded, every field and date included', async () => {
    const cache = enabledCache();
    const k = key({
      name: 'deploy bot',
      scopes: ScopeSetMother.of('projects:write', 'chat:read'),
      expiresAt: new Date(KEY_EPOCH.getTime() + 3_600_000),
      lastUsedAt: new Date(KEY_EPOCH.getTime() - 1),
      replacedBy: '3f9f5a7e-4b1c-4c1e-9d51-8f0f3f3f3f3f',
      rateLimit: { limit: 100, windowSeconds: 60 },
      quota: { refill: { amount: 500, interval: 'day' } },
      budgetId: '0f9f5a7e-4b1c-4c1e-9d51-8f0f3f3f3f3f',
    });
    await fill(cache, k);
    const back = hit(cache, k)!;
    expect(back).toEqual(k);
    expect(back.rateLimit).toEqual({ limit: 100, windowSeconds: 60 });
    expect(back.budgetId).toBe('0f9f5a7e-4b1c-4c1e-9d51-8f0f3f3f3f3f');
    expect(back.scopes.toArray()).toEqual(['projects:write', 'chat:read']);
    expect(back.isUsableAt(KEY_EPOCH)).toBe(true);
    expect(back.isUsableAt(k.expiresAt!)).toBe(false);
    // Each hit is its own ApiKey, so what one request does with it cannot reach the next.
    expect(hit(cache, k)).not.toBe(back);
  });

  it('shares one scope set among the keys that hold the same scopes', async () => {
    const cache = enabledCache(10);
    const [a, b] = [key({ scopes: ScopeSetMother.of('projects:read') }), key({ scopes: ScopeSetMother.of('projects:read') })];
    const [fullA, fullB] = [key(), key()];
    const other = key({ scopes: ScopeSetMother.of('models:write') });
    for (const k of [a, b, fullA, fullB, other]) await fill(cache, k);
    expect(hit(cache, a)!.scopes).toBe(hit(cache, b)!.scopes);
    expect(hit(cache, fullA)!.scopes).toBe(hit(cache, fullB)!.scopes);
    expect(hit(cache, other)!.scopes.toArray()).toEqual(['models:write']);
    expect(hit(cache, other)!.scopes.allows('projects:read')).toBe(false);
  });

  it('stays within its bound, dropping the least recently used entry', async () => {
    const cache = enabledCache(3);
    const keys = [key(), key(), key(), key()];
    await fill(cache, keys[0]);
    await fill(cache, keys[1]);
    await fill(cache, keys[2]);
    hit(cache, keys[0]); // now the most recent
    await fill(cache, keys[3]);
    expect(cache.size).toBe(3);
    expect(hit(cache, keys[1])).toBeUndefined();
    expect(hit(cache, keys[0])).toEqual(keys[0]);
    expect(hit(cache, keys[3])).toEqual(keys[3]);
  });

  it('evicts by key id, as change notifications name keys by id', async () => {
    const cache = enabledCache();
    const [k, other] = [key(), key()];
    await fill(cache, k);
    await fill(cache, other);
    cache.evict(k.id);
    expect(hit(cache, k)).toBeUndefined();
    expect(hit(cache, other)).toEqual(other);
    expect(cache.size).toBe(1);
  });

  it('still evicts by id a key that the bound pushed out and that came back', async () => {
    const cache = enabledCache(1);
    const [k, other] = [key(), key()];
    await fill(cache, k);
    await fill(cache, other); // pushes k out
    await fill(cache, k);
    cache.evict(k.id);
    expect(cache.size).toBe(0);
  });

  it('forgets every key on `*`, sent when the table is truncated, and refuses loads that began before', async () => {
    const cache = enabledCache();
    const [a, b] = [key(), key()];
    await fill(cache, a);
    await cache.load(b.keyHash, async () => {
      cache.evict('*');
      return b;
    });
    expect(cache.size).toBe(0);
    expect(hit(cache, b)).toBeUndefined();
  });

  it('refuses an entry read before an invalidation that happened while it was in flight', async () => {
    const cache = enabledCache();
    const k = key();
    // The revocation lands while the lookup is still reading the old row.
    expect(await cache.load(k.keyHash, async () => (cache.evict(k.id), k))).toBe(k);
    expect(hit(cache, k)).toBeUndefined();
    await fill(cache, k);
    expect(hit(cache, k)).toEqual(k);
  });

  it('never stores a revoked or unknown key, and hands both back as found', async () => {
    const cache = enabledCache();
    const revoked = key({ revokedAt: new Date() });
    expect(await fill(cache, revoked)).toBe(revoked);
    expect(await cache.load('unknown', async () => null)).toBeNull();
    expect(hit(cache, revoked)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
