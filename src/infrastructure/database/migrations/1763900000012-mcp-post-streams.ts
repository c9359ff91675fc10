import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resumable SSE answers to POSTs in a session (MCP 2025-11-25, SEP-1699):
 * their events go into the same per-session log as the standalone GET
 * stream's, tagged with the stream they belong to, so that a GET with
 * Last-Event-ID on any replica replays the rest of that stream only.
 * - stream: the seq of the POST stream's priming event (its first event);
 *   NULL for the standalone GET stream.
 * - ends_stream: the event that carries the last response the POST awaited;
 *   a resumption closes after sending it.
 * Both are metadata-only additions (a NULL column, a constant default).
 */
export class McpPostStreams1763900000012 implements MigrationInterface {
  name = 'McpPostStreams1763900000012';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE mcp_session_events ADD COLUMN stream bigint NULL, ADD COLUMN ends_stream boolean NOT NULL DEFAULT false',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_session_events DROP COLUMN ends_stream, DROP COLUMN stream');
  }
}
