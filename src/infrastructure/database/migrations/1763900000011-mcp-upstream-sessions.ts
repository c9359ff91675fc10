import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * keygate's own MCP sessions with upstream servers (issue 14), one per client
 * session and mcp_servers record, so any replica continues them: the
 * upstream's Mcp-Session-Id, the protocol version and server capabilities it
 * negotiated, what keygate declared as its client capabilities, and the
 * logging level last sent to it. Deleting the client session deletes them
 * (the replica that takes them on the session's end sends the upstream its
 * DELETE first). `mcp_sessions.log_level` is the client's logging/setLevel.
 */
export class McpUpstreamSessions1763900000011 implements MigrationInterface {
  name = 'McpUpstreamSessions1763900000011';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_sessions ADD COLUMN log_level varchar(16) NULL');
    await queryRunner.query(`
      CREATE TABLE mcp_upstream_sessions (
        client_session_id   uuid NOT NULL REFERENCES mcp_sessions(id) ON DELETE CASCADE,
        server_id           uuid NOT NULL,
        user_id             uuid NOT NULL,
        upstream_session_id text NOT NULL,
        protocol_version    varchar(32) NOT NULL,
        server_capabilities jsonb NOT NULL,
        client_capabilities jsonb NOT NULL,
        log_level           varchar(16) NULL,
        created_at          timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (client_session_id, server_id),
        CHECK (octet_length(upstream_session_id) <= 256),
        CHECK (octet_length(server_capabilities::text) <= 16384 AND octet_length(client_capabilities::text) <= 16384)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_upstream_sessions');
    await queryRunner.query('ALTER TABLE mcp_sessions DROP COLUMN log_level');
  }
}
