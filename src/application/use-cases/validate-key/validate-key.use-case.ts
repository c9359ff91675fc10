import { isWellFormedRawKey, RateLimit } from '../../../domain/api-key';
import { InvalidApiKeyError } from '../../../domain/errors';
import { ScopeSet } from '../../../domain/scope';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { KeyHasher } from '../../ports/key-hasher.port';

export interface ValidateKeyInput {
  rawKey: string;
}

/** What a validated key gives the request (spec section 5, step 6). */
export interface KeyPrincipal {
  keyId: string;
  /** The key's name, for the tools' rules (`key.name`); absent for an access token. */
  keyName?: string;
  userId: string;
  scopes: ScopeSet;
  /** What the key's rate window and quota are counted against (shared along a roll chain). */
  budgetId: string;
  rateLimit: RateLimit | null;
  hasQuota: boolean;
  /**
   * Set when the caller is a user's OAuth access token on /mcp, not a key.
   * `keyId` (and `budgetId`) is then the token subject's own id, made from its
   * issuer and subject: what its sessions belong to, never a key's id, so the
   * audit trail names the user instead. `expiresAt` is the token's `exp`;
   * `token` the token itself (secret: never logged, audited or shown), the
   * subject token a token_exchange server's upstream token is made from.
   */
  accessToken?: { expiresAt: Date; token: string };
}

/** Spec section 5, in order. Every failure is the same InvalidApiKeyError. */
export class ValidateKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: ValidateKeyInput): Promise<KeyPrincipal> {
    // A malformed key cannot match a stored one; refusing it here spares the lookup.
    if (!isWellFormedRawKey(input.rawKey)) throw new InvalidApiKeyError();
    const key = await this.keys.findByHash(this.hasher.hash(input.rawKey));
    const now = this.clock.now();
    if (!key || !key.isUsableAt(now)) throw new InvalidApiKeyError();
    await this.keys.touchLastUsed(key.id, now);
    return {
      keyId: key.id,
      keyName: key.name,
      userId: key.userId,
      scopes: key.scopes,
      budgetId: key.budgetId,
      rateLimit: key.rateLimit,
      hasQuota: key.quota !== null,
    };
  }
}
