import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * resources/subscribe of a client session (issue 14): which upstream URIs it
 * follows, per mcp_servers record, under the upstream's own URI. Keyed by the
 * URI's SHA-256 because a URI may reach 8192 characters, past what a btree
 * entry holds. Deleting the client session deletes them.
 */
export class McpResourceSubscriptions1763900000013 implements MigrationInterface {
  name = 'McpResourceSubscriptions1763900000013';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_resource_subscriptions (
        client_session_id uuid NOT NULL REFERENCES mcp_sessions(id) ON DELETE CASCADE,
        server_id         uuid NOT NULL,
        uri_sha256        bytea NOT NULL,
        uri               text NOT NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_session_id, server_id, uri_sha256),
        CHECK (char_length(uri) BETWEEN 1 AND 8192)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_resource_subscriptions');
  }
}
