import { IsArray, IsIn, IsString } from 'class-validator';
import { RULE_APPROVERS, RULE_EFFECTS, RULE_LIMITS } from '../../../domain/tool';
import { componentRef, Described, Optional, SchemaOf, Timestamp } from './wire-decorators';

/**
 * One tool rule (docs/policy-rules.md). The use-cases check the condition
 * (CEL: parses, at most 2 KiB, only the rule variables) and answer 400 with
 * its line and column.
 */
export class ToolRuleDto {
  @Described({
    description: 'A CEL condition over args, key, user, tool, server and now; the first rule whose condition is true decides.',
    maxLength: RULE_LIMITS.expressionBytes,
  })
  @IsString()
  when!: string;

  @Described({ description: 'require_approval holds a call on /mcp until its approver approves it (docs/policy-rules.md#approvals).' })
  @IsIn([...RULE_EFFECTS])
  effect!: string;

  @Described({ description: 'What a refused caller is told.', maxLength: RULE_LIMITS.messageChars })
  @IsString()
  message!: string;

  @Described({ description: "Who approves a require_approval call: the key's owner (the default) or any admin." })
  @Optional()
  @IsIn([...RULE_APPROVERS])
  approvers?: string;
}

/** Tool name → its ordered rules. */
export const TOOL_RULES_SCHEMA = {
  type: 'object',
  description: 'Tool name → its rules, in order (at most 20 per tool).',
  additionalProperties: { type: 'array', maxItems: RULE_LIMITS.rulesPerTool, items: componentRef('ToolRule') },
};

/** PUT /api/v1/tool-rules/:tool: the tool's whole ordered list (empty clears it). */
export class ToolRulesInputDto {
  @SchemaOf({ type: 'array', maxItems: RULE_LIMITS.rulesPerTool, items: componentRef('ToolRule') })
  @IsArray({ message: 'must be an array of rules' })
  rules!: unknown[];
}

/** A built-in tool's rules as stored. */
export class BuiltInToolRulesDto {
  @IsString() tool!: string;
  @SchemaOf({ type: 'array', items: componentRef('ToolRule') }) @IsArray() rules!: ToolRuleDto[];
  @Timestamp() updated_at!: string;
}
