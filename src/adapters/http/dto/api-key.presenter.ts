import { ApiKey } from '../../../domain/api-key';

/** Allow-lists of response fields: key_hash never leaves the service. */
export function presentKey(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    user_id: key.userId,
    scopes: key.scopes.toArray(),
    expires_at: iso(key.expiresAt),
    last_used_at: iso(key.lastUsedAt),
    created_at: iso(key.createdAt),
    revoked_at: iso(key.revokedAt),
    replaced_by: key.replacedBy,
  };
}

export function presentCreatedKey(key: ApiKey, rawKey: string) {
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    raw_key: rawKey,
    scopes: key.scopes.toArray(),
    expires_at: iso(key.expiresAt),
    created_at: iso(key.createdAt),
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
