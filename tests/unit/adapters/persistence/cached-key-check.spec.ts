import { randomBytes } from 'node:crypto';
import { Sha256KeyHasher } from '../../../../src/adapters/crypto/sha256-key-hasher';
import { CachedKeyCheck } from '../../../../src/adapters/persistence/hot-path/cached-key-check';
import { KeyCache } from '../../../../src/adapters/persistence/hot-path/key-cache';
import { ApiKeyMother, KEY_EPOCH } from '../../../mothers/api-key.mother';
import { FixedClock } from '../../../fakes/fixed-clock';

const hasher = new Sha256KeyHasher();
const rawKey = () => `svc_${randomBytes(32).toString('hex')}`;

function makeSut() {
  const cache = new KeyCache(10);
  cache.enable();
  const clock = new FixedClock(KEY_EPOCH);
  /** Puts a stored key for `raw` in the cache, as a validation that missed would. */
  const cached = (raw: string, expiresAt: Date | null = null) =>
    cache.load(hasher.hash(raw), async () => ApiKeyMother.active({ keyHash: hasher.hash(raw), expiresAt }));
  return { sut: new CachedKeyCheck(cache, hasher, clock), cache, clock, cached };
}

describe('CachedKeyCheck', () => {
  it('says yes to a usable key the cache holds', async () => {
    const { sut, cached } = makeSut();
    const raw = rawKey();
    await cached(raw);
    expect(sut.validates(raw)).toBe(true);
  });

  it('says no to a key the cache does not hold, however valid it may be in the database', () => {
    expect(makeSut().sut.validates(rawKey())).toBe(false);
  });

  it('says no to a cached key once it has expired', async () => {
    const { sut, clock, cached } = makeSut();
    const raw = rawKey();
    await cached(raw, new Date(KEY_EPOCH.getTime() + 1000));
    expect(sut.validates(raw)).toBe(true);
    clock.advance(1000);
    expect(sut.validates(raw)).toBe(false);
  });

  it('says no to a malformed key, a key changed by one character and when the cache is off', async () => {
    const { sut, cache, cached } = makeSut();
    const raw = rawKey();
    await cached(raw);
    for (const other of ['', 'svc_', raw.toUpperCase(), `${raw} `, `${raw.slice(0, -1)}${raw.endsWith('0') ? '1' : '0'}`])
      expect(sut.validates(other)).toBe(false);
    cache.disable();
    expect(sut.validates(raw)).toBe(false);
  });
});
