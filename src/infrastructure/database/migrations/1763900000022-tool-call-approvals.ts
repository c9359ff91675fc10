import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approvals of single tool calls (issue 28, increment 3): a call a
 * require_approval rule holds, bound to its key, tool, argument digest and
 * the rules' record version. The arguments are kept for the approver to read,
 * sealed by the service (SecretBox under SECRETS_KEY, bound to the row's id
 * and key): they may hold secrets the caller sent. A granted approval is used
 * by a conditional UPDATE (state 'granted' to 'used'), so one call runs.
 * `key_id` is not a foreign key, as mcp_sessions' is not: one would forbid
 * TRUNCATE api_keys. A key deleted in SQL leaves its approvals unusable (no
 * call can come with it) until they age out.
 */
export class ToolCallApprovals1763900000022 implements MigrationInterface {
  name = 'ToolCallApprovals1763900000022';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tool_call_approvals (
        id               uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
        key_id           uuid        NOT NULL,
        user_id          uuid        NOT NULL,
        tool             text        NOT NULL,
        tool_name        text        NOT NULL,
        server_name      text        NOT NULL,
        record_id        text        NOT NULL,
        record_version   text        NOT NULL,
        arguments_sha256 text        NOT NULL,
        sealed_arguments text        NOT NULL,
        rule_index       integer     NOT NULL,
        rule_message     text        NOT NULL,
        approvers        text        NOT NULL CHECK (approvers IN ('owner', 'admin')),
        state            text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'granted', 'denied', 'used')),
        created_at       timestamptz NOT NULL,
        expires_at       timestamptz NOT NULL,
        decided_by       uuid,
        decided_at       timestamptz
      )`);
    // A call finds its approval by its binding; the per-key bound counts a key's pending ones.
    await queryRunner.query(
      'CREATE INDEX tool_call_approvals_binding_idx ON tool_call_approvals (key_id, tool, arguments_sha256, record_id, record_version, created_at)',
    );
    await queryRunner.query(
      `CREATE INDEX tool_call_approvals_pending_idx ON tool_call_approvals (user_id, created_at) WHERE state = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE tool_call_approvals');
  }
}
