import type { RuleApprover } from '../tool';

export type ApprovalState = 'pending' | 'granted' | 'denied' | 'used';

/**
 * What an approval is bound to: one key's call of one tool with arguments of
 * one digest, against one version of the rules' record. A call that differs
 * in any of them needs an approval of its own.
 */
export interface ApprovalBinding {
  keyId: string;
  /** The tool as its rules name it: `<server id>/<upstream tool>` for a server's tool, the built-in tool's name. */
  tool: string;
  /** SHA-256 hex of the arguments' canonical JSON (`{}` when absent), as the audit trail's `args_sha256`. */
  argumentsSha256: string;
  /** The rules' record and its version: a server record's id and updated_at, or `built_in` and a digest of the tool's rules. */
  recordId: string;
  recordVersion: string;
}

/** One call held by a require_approval rule, waiting for (or holding) a person's answer. */
export interface ToolCallApproval extends ApprovalBinding {
  id: string;
  /** The key's owner: the one approver unless the rule names admins. */
  userId: string;
  /** The name the call used (`<server>__<tool>` on /mcp, a built-in tool's name). */
  toolName: string;
  /** The server record's name; empty for a built-in tool. */
  serverName: string;
  /** The call's arguments, for the approver to read (sealed at rest). */
  arguments: Record<string, unknown>;
  ruleIndex: number;
  ruleMessage: string;
  approvers: RuleApprover;
  state: ApprovalState;
  createdAt: Date;
  expiresAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
}

/** Whether `approval` answers a call bound as `binding`. */
export function boundTo(approval: ApprovalBinding, binding: ApprovalBinding): boolean {
  return (
    approval.keyId === binding.keyId &&
    approval.tool === binding.tool &&
    approval.argumentsSha256 === binding.argumentsSha256 &&
    approval.recordId === binding.recordId &&
    approval.recordVersion === binding.recordVersion
  );
}

/** Whether an approval's answer still counts at `now` (an expired one, whatever its state, answers nothing). */
export function isLive(approval: Pick<ToolCallApproval, 'expiresAt'>, now: Date): boolean {
  return approval.expiresAt.getTime() > now.getTime();
}

/** Who may decide `approval`: its key's owner, or any admin when its rule names admins. */
export function mayDecide(approval: Pick<ToolCallApproval, 'userId' | 'approvers'>, actor: { userId: string; admin: boolean }): boolean {
  return approval.approvers === 'admin' ? actor.admin : approval.userId === actor.userId;
}
