import { IsBoolean, IsIn, IsInt, IsObject, IsString, Min } from 'class-validator';
import { ToolCallApproval } from '../../../domain/approval';
import { RULE_APPROVERS } from '../../../domain/tool';
import { Described, Nested, NullableSchema, Timestamp, Uuid } from './wire-decorators';

/** Arguments shown to an approver at most (canonical JSON's length); larger ones are left out and flagged. */
export const MAX_SHOWN_ARGUMENTS = 64 * 1024;

export class ApprovalRuleDto {
  @IsInt() @Min(0) index!: number;
  @Described({ description: "The rule's message." }) @IsString() message!: string;
}

/** One call waiting for a yes or no (docs/policy-rules.md#approvals). */
export class ApprovalDto {
  @Uuid() id!: string;
  @Uuid() key_id!: string;
  @Described({ description: "The key's owner." }) @Uuid() user_id!: string;
  @Described({ description: 'As the client called it on /mcp: `projects`, `files__write`.' }) @IsString() tool!: string;
  @Described({ description: "The server record's name; empty for a built-in tool." }) @IsString() server!: string;
  @Described({ description: `What the call will run with; null when its JSON is over ${MAX_SHOWN_ARGUMENTS} characters.` })
  @NullableSchema()
  @IsObject()
  arguments!: Record<string, unknown> | null;
  @IsBoolean() arguments_truncated!: boolean;
  @Described({ description: "SHA-256 hex of the arguments' canonical JSON, as the audit trail's args_sha256." })
  @IsString()
  arguments_sha256!: string;
  @Nested(() => ApprovalRuleDto) rule!: ApprovalRuleDto;
  @IsIn([...RULE_APPROVERS]) approvers!: string;
  @IsIn(['pending', 'granted', 'denied', 'used']) state!: string;
  @Timestamp() created_at!: string;
  @Timestamp() expires_at!: string;

  static from(approval: ToolCallApproval): ApprovalDto {
    const shown = JSON.stringify(approval.arguments).length <= MAX_SHOWN_ARGUMENTS;
    return {
      id: approval.id,
      key_id: approval.keyId,
      user_id: approval.userId,
      tool: approval.toolName,
      server: approval.serverName,
      arguments: shown ? approval.arguments : null,
      arguments_truncated: !shown,
      arguments_sha256: approval.argumentsSha256,
      rule: { index: approval.ruleIndex, message: approval.ruleMessage },
      approvers: approval.approvers,
      state: approval.state,
      created_at: approval.createdAt.toISOString(),
      expires_at: approval.expiresAt.toISOString(),
    };
  }
}
