import { ApiKey } from '../../domain/api-key';
import { ScopeSet } from '../../domain/scope';

export interface NewApiKey {
  name: string;
  keyPrefix: string;
  keyHash: string;
  userId: string;
  scopes: ScopeSet;
  expiresAt: Date | null;
  createdAt: Date;
}

export interface ApiKeyRepository {
  /**
   * Stores the key unless its user already holds `limit` non-revoked keys;
   * the count and the insert are one atomic step. Returns null at the limit.
   */
  insertWithinLimit(key: NewApiKey, limit: number): Promise<ApiKey | null>;
  findById(id: string): Promise<ApiKey | null>;
  findByHash(keyHash: string): Promise<ApiKey | null>;
  /** Non-revoked keys of a user (expired included), newest first. */
  listNonRevokedByUser(userId: string): Promise<ApiKey[]>;
  /** Sets revoked_at if the key is not revoked yet; false when nothing changed. */
  revoke(id: string, at: Date): Promise<boolean>;
  /** Moves last_used_at forward to `at`; never moves it backwards. */
  touchLastUsed(id: string, at: Date): Promise<void>;
}
