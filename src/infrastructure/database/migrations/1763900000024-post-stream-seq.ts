import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A POST stream's events are named by the replica that answers it, without
 * a round trip (adapters/mcp/sessions/post-stream-event-id.ts), and written
 * to the log only when a client may come back for them; the session's seq
 * still orders and bounds the log.
 * - post_seq: the event's place in its POST stream, the second half of its
 *   SSE id; NULL for the standalone stream. Rows written before this took
 *   their session seq as their place, and keep it.
 */
export class PostStreamSeq1763900000024 implements MigrationInterface {
  name = 'PostStreamSeq1763900000024';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_session_events ADD COLUMN post_seq bigint NULL');
    await queryRunner.query('UPDATE mcp_session_events SET post_seq = seq WHERE stream IS NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE mcp_session_events DROP COLUMN post_seq');
  }
}
