import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateApiKeys1763900000000 implements MigrationInterface {
  name = 'CreateApiKeys1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        name         varchar(255) NOT NULL CHECK (length(btrim(name)) > 0),
        key_prefix   varchar(8)  NOT NULL,
        key_hash     char(64)    NOT NULL,
        user_id      uuid        NOT NULL,
        scopes       text[]      NOT NULL DEFAULT '{}',
        expires_at   timestamptz NULL,
        last_used_at timestamptz NULL,
        revoked_at   timestamptz NULL,
        created_at   timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX api_keys_key_hash_uq ON api_keys (key_hash)');
    // Serves the per-user list (non-revoked, newest first) and the per-user count.
    await queryRunner.query('CREATE INDEX api_keys_user_active_idx ON api_keys (user_id, created_at DESC) WHERE revoked_at IS NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE api_keys');
  }
}
