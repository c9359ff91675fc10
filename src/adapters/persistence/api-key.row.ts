import { EntitySchema } from 'typeorm';

/** The `api_keys` table as TypeORM sees it; the schema itself comes from migrations. */
export interface ApiKeyRow {
  id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  user_id: string;
  scopes: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  replaced_by: string | null;
  /** NULL: the key's own id. */
  budget_id: string | null;
  rate_limit_limit: number | null;
  rate_limit_window_seconds: number | null;
  has_quota: boolean;
  /** bigint, which the driver hands over as a string. */
  quota_refill_amount: string | number | null;
  quota_refill_interval: string | null;
}

export const ApiKeyRowSchema = new EntitySchema<ApiKeyRow>({
  name: 'ApiKeyRow',
  tableName: 'api_keys',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    name: { type: 'varchar', length: 255 },
    key_prefix: { type: 'varchar', length: 8 },
    key_hash: { type: 'char', length: 64 },
    user_id: { type: 'uuid' },
    scopes: { type: 'text', array: true },
    expires_at: { type: 'timestamptz', nullable: true },
    last_used_at: { type: 'timestamptz', nullable: true },
    revoked_at: { type: 'timestamptz', nullable: true },
    created_at: { type: 'timestamptz' },
    replaced_by: { type: 'uuid', nullable: true },
    budget_id: { type: 'uuid', nullable: true },
    rate_limit_limit: { type: 'integer', nullable: true },
    rate_limit_window_seconds: { type: 'integer', nullable: true },
    has_quota: { type: 'boolean', default: false },
    quota_refill_amount: { type: 'bigint', nullable: true },
    quota_refill_interval: { type: 'text', nullable: true },
  },
});
