import { EntityManager } from 'typeorm';
import { ApprovalFilter, NewApproval, ToolCallApprovalStore } from '../../../application/ports/tool-call-approval-store.port';
import { SecretBox } from '../../../application/ports/secret-box.port';
import { ApprovalBinding, ApprovalState, ToolCallApproval } from '../../../domain/approval';
import { RuleApprover } from '../../../domain/tool';
import { SecretBoxError } from '../../crypto/aes-gcm-secret-box';
import { databaseCall } from '../database-unavailable';

interface ApprovalRow {
  id: string;
  key_id: string;
  user_id: string;
  tool: string;
  tool_name: string;
  server_name: string;
  record_id: string;
  record_version: string;
  arguments_sha256: string;
  sealed_arguments: string;
  rule_index: number;
  rule_message: string;
  approvers: RuleApprover;
  state: ApprovalState;
  created_at: Date;
  expires_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
}

/**
 * ToolCallApprovalStore on PostgreSQL (migration 1763900000022). The
 * arguments are sealed under SECRETS_KEY, bound to the row's id and key, as
 * connection secrets are. Every change is one conditional statement on the
 * row's state and expiry (`UPDATE ... WHERE state = 'granted' ... RETURNING`),
 * so of two replicas racing to use one approval exactly one wins.
 */
export class PostgresToolCallApprovalStore implements ToolCallApprovalStore {
  constructor(
    private readonly manager: EntityManager,
    private readonly box: SecretBox,
  ) {}

  async createWithinLimit(approval: NewApproval, maxPending: number, now: Date): Promise<ToolCallApproval | null> {
    // The key's row is locked so two calls of one key cannot both pass the bound (the run is one transaction).
    await this.query('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [approval.keyId]);
    // The key's approvals a day past their expiry answer nothing any more (a call finding one would only note it expired).
    await this.query(`DELETE FROM tool_call_approvals WHERE key_id = $1 AND expires_at < $2::timestamptz - interval '1 day'`, [
      approval.keyId,
      now,
    ]);
    const [{ count }] = await this.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM tool_call_approvals WHERE key_id = $1 AND state = 'pending' AND expires_at > $2`,
      [approval.keyId, now],
    );
    if (count >= maxPending) return null;
    const [{ id }] = await this.query<{ id: string }>('SELECT gen_random_uuid() AS id', []);
    const sealed = this.box.encrypt(JSON.stringify(approval.arguments), contextOf(id, approval.keyId));
    const [row] = await this.query<ApprovalRow>(
      `INSERT INTO tool_call_approvals (id, key_id, user_id, tool, tool_name, server_name, record_id, record_version,
         arguments_sha256, sealed_arguments, rule_index, rule_message, approvers, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      [
        id,
        approval.keyId,
        approval.userId,
        approval.tool,
        approval.toolName,
        approval.serverName,
        approval.recordId,
        approval.recordVersion,
        approval.argumentsSha256,
        sealed,
        approval.ruleIndex,
        approval.ruleMessage,
        approval.approvers,
        approval.createdAt,
        approval.expiresAt,
      ],
    );
    return this.toApproval(row);
  }

  async latestFor(binding: ApprovalBinding): Promise<ToolCallApproval | null> {
    const [row] = await this.query<ApprovalRow>(
      `SELECT * FROM tool_call_approvals
       WHERE key_id = $1 AND tool = $2 AND arguments_sha256 = $3 AND record_id = $4 AND record_version = $5
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [binding.keyId, binding.tool, binding.argumentsSha256, binding.recordId, binding.recordVersion],
    );
    return row ? this.toApproval(row) : null;
  }

  async find(id: string): Promise<ToolCallApproval | null> {
    const [row] = await this.query<ApprovalRow>('SELECT * FROM tool_call_approvals WHERE id = $1', [id]);
    return row ? this.toApproval(row) : null;
  }

  async listPending(filter: ApprovalFilter, now: Date, limit: number): Promise<ToolCallApproval[]> {
    const rows = await this.query<ApprovalRow>(
      `SELECT * FROM tool_call_approvals
       WHERE state = 'pending' AND expires_at > $1
         AND ((approvers = 'owner' AND user_id = $2) OR ($3 AND approvers = 'admin'))
         AND ($4::uuid IS NULL OR user_id = $4)
       ORDER BY created_at DESC, id DESC LIMIT $5`,
      [now, filter.decider.userId, filter.decider.admin, filter.ownerId ?? null, limit],
    );
    return rows.map((row) => this.toApproval(row));
  }

  // A bare UPDATE ... RETURNING comes back from TypeORM as [rows, count]; selected from a CTE, as rows.
  async decide(id: string, to: 'granted' | 'denied', by: string, now: Date): Promise<ToolCallApproval | null> {
    const [row] = await this.query<ApprovalRow>(
      `WITH decided AS (UPDATE tool_call_approvals SET state = $2, decided_by = $3, decided_at = $4
         WHERE id = $1 AND state = 'pending' AND expires_at > $4 RETURNING *)
       SELECT * FROM decided`,
      [id, to, by, now],
    );
    return row ? this.toApproval(row) : null;
  }

  async consume(id: string, now: Date): Promise<boolean> {
    const rows = await this.query<{ id: string }>(
      `WITH used AS (UPDATE tool_call_approvals SET state = 'used' WHERE id = $1 AND state = 'granted' AND expires_at > $2 RETURNING id)
       SELECT id FROM used`,
      [id, now],
    );
    return rows.length === 1;
  }

  private toApproval(row: ApprovalRow): ToolCallApproval {
    return {
      id: row.id,
      keyId: row.key_id,
      userId: row.user_id,
      tool: row.tool,
      toolName: row.tool_name,
      serverName: row.server_name,
      recordId: row.record_id,
      recordVersion: row.record_version,
      argumentsSha256: row.arguments_sha256,
      arguments: this.open(row),
      ruleIndex: row.rule_index,
      ruleMessage: row.rule_message,
      approvers: row.approvers,
      state: row.state,
      createdAt: new Date(row.created_at),
      expiresAt: new Date(row.expires_at),
      decidedBy: row.decided_by,
      decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
    };
  }

  /** The arguments; `{}` when sealed under a key this service no longer has (the digest still binds the call). */
  private open(row: ApprovalRow): Record<string, unknown> {
    try {
      return JSON.parse(this.box.decrypt(row.sealed_arguments, contextOf(row.id, row.key_id))) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof SecretBoxError) return {};
      throw error;
    }
  }

  private query<T>(sql: string, params: unknown[]): Promise<T[]> {
    return databaseCall(this.manager.query<T[]>(sql, params));
  }
}

function contextOf(id: string, keyId: string): string {
  return JSON.stringify(['tool_call_approvals', id, keyId]);
}
