import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP sessions opened with a user's OAuth access token (issue 15).
 *
 * Such a session belongs to the token's subject the way a key's belongs to
 * the key: `key_id` then holds the subject's own id (a version-8 UUID made
 * from the token's issuer and subject, which no key id, a version-4 UUID,
 * can equal), so the per-key session limit, the ownership check and the
 * eviction order work unchanged. Tokens cannot be revoked, so `expires_at`
 * is the `exp` of the latest token that used the session: past it the
 * session is over (404) and its stream closes at the next keep-alive. Null
 * for a key's session, which ends with its key as before.
 */
export class McpTokenSessions1763900000016 implements MigrationInterface {
  name = 'McpTokenSessions1763900000016';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_sessions ADD COLUMN expires_at timestamptz NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_sessions DROP COLUMN expires_at');
  }
}
