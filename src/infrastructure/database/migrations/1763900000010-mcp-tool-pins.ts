import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pinned definitions of upstream MCP servers' tools (issue 14): per server
 * record and tool name, the approved definition's SHA-256, the one last
 * served and whether they differ. A server's pins go with its record.
 * Listings write here only when something is new; the writes are conditional
 * (ON CONFLICT, UPDATE .. WHERE the hash differs), so replicas listing the
 * same server at once agree, and a new definition is reported once.
 */
export class McpToolPins1763900000010 implements MigrationInterface {
  name = 'McpToolPins1763900000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_tool_pins (
        server_id   uuid         NOT NULL REFERENCES resource_records (id) ON DELETE CASCADE,
        tool_name   varchar(128) NOT NULL,
        sha256      char(64)     NOT NULL,
        seen_sha256 char(64)     NOT NULL,
        status      text         NOT NULL CHECK (status IN ('approved', 'changed')),
        pinned_at   timestamptz  NOT NULL DEFAULT now(),
        approved_at timestamptz  NOT NULL DEFAULT now(),
        seen_at     timestamptz  NOT NULL DEFAULT now(),
        PRIMARY KEY (server_id, tool_name),
        CHECK ((status = 'approved') = (sha256 = seen_sha256))
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mcp_tool_pins');
  }
}
