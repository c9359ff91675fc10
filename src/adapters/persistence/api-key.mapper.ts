import { ApiKey } from '../../domain/api-key';
import { ScopeSet } from '../../domain/scope';
import { ApiKeyRow } from './api-key.row';

export class ApiKeyMapper {
  static toDomain(row: ApiKeyRow): ApiKey {
    return ApiKey.restore({
      id: row.id,
      name: row.name,
      keyPrefix: row.key_prefix,
      keyHash: row.key_hash,
      userId: row.user_id,
      scopes: ScopeSet.fromTrusted(row.scopes),
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      createdAt: row.created_at,
      replacedBy: row.replaced_by,
    });
  }
}
