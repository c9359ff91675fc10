import { Clock } from '../../../application/ports/clock.port';
import { KeyHasher } from '../../../application/ports/key-hasher.port';
import { isWellFormedRawKey } from '../../../domain/api-key';
import { KeyCache } from './key-cache';

/**
 * Whether a raw key would validate from the key cache alone: well formed,
 * cached (the cache keeps only keys that exist and are not revoked) and usable
 * now. It never reads the database, so it costs a hash and a map lookup. The
 * failed-validation limit asks it before refusing an address (see
 * auth-failure-limit.ts).
 */
export class CachedKeyCheck {
  constructor(
    private readonly cache: KeyCache,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  readonly validates = (rawKey: string): boolean => {
    if (!isWellFormedRawKey(rawKey)) return false;
    return this.cache.get(this.hasher.hash(rawKey))?.isUsableAt(this.clock.now()) === true;
  };
}
