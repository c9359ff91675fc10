import { ToolCallApproval } from '../../../domain/approval';
import { AuditAction, AuditActor, AuditOrigin, AuditRecord, NO_ORIGIN } from '../../../domain/audit';
import { auditEvent } from '../actor-event';

/**
 * An `approval.*` event: the approval, its call's tool, record and argument
 * digest, never the arguments themselves (they may hold secrets the caller
 * sent) nor the rule's message.
 */
export function approvalEvent(
  action: AuditAction,
  actor: AuditActor,
  approval: ToolCallApproval,
  at: Date,
  origin: AuditOrigin = NO_ORIGIN,
): AuditRecord {
  return auditEvent(
    action,
    actor,
    { userId: approval.userId, keyId: approval.keyId, target: { type: 'approval', id: approval.id } },
    origin,
    at,
    {
      tool: approval.toolName,
      record_id: approval.recordId,
      args_sha256: approval.argumentsSha256,
      rule_index: approval.ruleIndex,
      approvers: approval.approvers,
    },
  );
}
