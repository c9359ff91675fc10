import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth connections (issue 27, increment 3): an authorization a user began,
 * waiting for the authorization server's redirect back, which may reach any
 * replica. Keyed by a SHA-256 of its `state` (the state itself is a bearer
 * capability for the callback); the PKCE verifier and client registration are
 * sealed by the service (SecretBox under SECRETS_KEY, bound to the row).
 * Taken once (deleted), and worthless after `expires_at`. And when a
 * connection's refresh was last audited (`mcp_connection.refreshed` at most
 * once an hour).
 */
export class McpConnectionAttempts1763900000018 implements MigrationInterface {
  name = 'McpConnectionAttempts1763900000018';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_connection_attempts (
        state_hash     text        PRIMARY KEY,
        user_id        uuid        NOT NULL,
        server_id      uuid        NOT NULL REFERENCES resource_records (id) ON DELETE CASCADE,
        sealed_pending text        NOT NULL,
        expires_at     timestamptz NOT NULL,
        created_at     timestamptz NOT NULL DEFAULT now()
      )`);
    // Expired attempts are swept by age; a server's go with it (the cascade looks them up by server).
    await queryRunner.query('CREATE INDEX mcp_connection_attempts_expiry_idx ON mcp_connection_attempts (expires_at)');
    await queryRunner.query('CREATE INDEX mcp_connection_attempts_server_idx ON mcp_connection_attempts (server_id)');
    // When a refresh of the connection was last audited: mcp_connection.refreshed at most once an hour, across replicas.
    await queryRunner.query('ALTER TABLE mcp_connections ADD COLUMN refresh_audited_at timestamptz');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_connections DROP COLUMN refresh_audited_at');
    await queryRunner.query('DROP TABLE mcp_connection_attempts');
  }
}
