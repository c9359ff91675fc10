import { ApiKey, ApiKeyAttributes } from '../../domain/api-key';

export interface NewApiKey extends ApiKeyAttributes {
  keyPrefix: string;
  keyHash: string;
  userId: string;
  createdAt: Date;
  /** A roll's new key shares its predecessor's budget; absent: the key's own. */
  budgetId?: string;
}

/** What PATCH may change; absent fields stay as they are. */
export type ApiKeyChanges = Partial<ApiKeyAttributes>;

/** What a roll does to the key it replaces: revoke it now, or let it expire at the end of the overlap. */
export type RetireKey = { revokedAt: Date } | { expiresAt: Date | null };

export interface ApiKeyRepository {
  /**
   * Stores the key unless its user already holds `limit` keys that count
   * (ApiKey.countsTowardLimitAt, as of the key's createdAt); the count and the
   * insert are one atomic step. Returns null at the limit.
   */
  insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null>;
  findById(id: string): Promise<ApiKey | null>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  /** Non-revoked keys of a user (expired included), newest first. */
  listNonRevokedByUser(userId: string): Promise<ApiKey[]>;
  /** Stores a key with no limit check: a roll's new key when its predecessor is revoked in the same step. */
  insert(key: NewApiKey): Promise<ApiKey>;
  /** Changes a key that is neither revoked nor replaced (checked in the same statement); null otherwise. */
  update(id: string, changes: ApiKeyChanges): Promise<ApiKey | null>;
  /**
   * Points a key at its successor and retires it, if it is neither revoked
   * nor replaced yet (checked in the same statement); null otherwise.
   */
  markReplaced(id: string, replacedBy: string, retire: RetireKey): Promise<ApiKey | null>;
  /** Sets revoked_at if the key is not revoked yet; false when nothing changed. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Moves last_used_at forward to `at`; never moves it backwards. */
  touchLastUsed(id: string, at: Date): Promise<void>;
}
