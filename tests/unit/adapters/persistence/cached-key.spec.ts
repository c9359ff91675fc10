import { fromCachedKey, toCachedKey } from '../../../../src/adapters/persistence/hot-path/cached-key';
import { ApiKeyProps } from '../../../../src/domain/api-key';
import { ApiKeyMother, KEY_EPOCH } from '../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

describe('cached key', () => {
  it('gives back the whole key, a key attribute it does not name included', () => {
    const key = ApiKeyMother.active({
      expiresAt: new Date(KEY_EPOCH.getTime() + 60_000),
      lastUsedAt: KEY_EPOCH,
      scopes: ScopeSetMother.of('chat:read'),
      rateLimit: { limit: 5, windowSeconds: 60 },
      quota: { refill: null },
      ...({ note: 'for the nightly job' } as Partial<ApiKeyProps>),
    });
    const back = fromCachedKey(key.keyHash, toCachedKey(key, key.scopes));
    expect(back).toEqual(key);
    expect(back.attributes).toMatchObject({ note: 'for the nightly job' });
  });

  it('keeps no copy of the hash, which is the cache key', () => {
    const key = ApiKeyMother.active();
    expect(JSON.stringify(toCachedKey(key, key.scopes))).not.toContain(key.keyHash);
  });
});
