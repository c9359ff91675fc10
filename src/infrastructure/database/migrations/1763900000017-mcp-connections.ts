import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream credentials per user (issue 27): one connection per user and MCP
 * server record, which it goes with (ON DELETE CASCADE). Secrets and tokens
 * are sealed by the service (SecretBox under SECRETS_KEY, bound to user,
 * server and field) before they reach these columns. `refreshing_until`
 * lets one replica at a time refresh an OAuth token set (a later increment).
 */
export class McpConnections1763900000017 implements MigrationInterface {
  name = 'McpConnections1763900000017';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_connections (
        id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id          uuid        NOT NULL,
        server_id        uuid        NOT NULL REFERENCES resource_records (id) ON DELETE CASCADE,
        kind             text        NOT NULL CHECK (kind IN ('oauth', 'user_secret')),
        state            text        NOT NULL CHECK (state IN ('pending', 'connected', 'failed')),
        scopes           text[]      NOT NULL DEFAULT '{}',
        expires_at       timestamptz,
        issuer           text,
        client_registration jsonb,
        sealed_secret    text,
        sealed_tokens    text,
        refreshing_until timestamptz,
        created_at       timestamptz NOT NULL DEFAULT now(),
        updated_at       timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, server_id)
      )`);
    // Deleting a server finds its connections by server; (user_id, server_id) serves the per-call read.
    await queryRunner.query('CREATE INDEX mcp_connections_server_idx ON mcp_connections (server_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_connections');
  }
}
