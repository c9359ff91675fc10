import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsString, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ExplainedRule, ExplainStep, KeyStanding } from '../../../application/use-cases/explain/explain-step';
import { ToolCallExplanation } from '../../../application/use-cases/explain/explain-tool-call.use-case';
import { KeyTool, KeyTools } from '../../../application/use-cases/explain/list-key-tools.use-case';
import { componentRef, Described, Nested, NullableSchema, Optional, SchemaOf, Timestamp, Uuid } from './wire-decorators';

const STEPS = ['key', 'tool', 'scope', 'pin', 'connection', 'rules', 'rate_limit', 'quota', 'approval'];
const OUTCOMES = ['pass', 'fail', 'not_applicable', 'needs_arguments'];
const RULE_OUTCOMES = ['matched', 'not_matched', 'error', 'needs_arguments', 'not_evaluated'];
const STRINGS = { type: 'array', items: { type: 'string' } };
/** Longer than any tool name a client can call (`<server>__<tool>`); a longer one is refused unread. */
const MAX_TOOL_NAME = 512;

/** POST /api/v1/authz/explain. */
export class ExplainRequestDto {
  @Described({ description: "The key to explain: the caller's own, or any key for an admin." })
  @IsString()
  key_id!: string;

  @Described({ description: 'The tool as a client calls it on /mcp: `projects`, `files__echo`.', maxLength: MAX_TOOL_NAME })
  @MaxLength(MAX_TOOL_NAME)
  @IsString()
  tool!: string;

  @Described({ description: "The call's arguments; left out, a rule that reads them answers needs_arguments." })
  @Optional()
  @IsObject({ message: 'must be an object' })
  arguments?: Record<string, unknown>;
}

export class KeyStandingDto {
  @IsIn(['active', 'expired', 'revoked', 'rolled']) state!: string;
  @IsBoolean() usable!: boolean;
  @NullableSchema() @Timestamp() expires_at!: string | null;
  @NullableSchema() @Timestamp() revoked_at!: string | null;
  @NullableSchema() @Uuid() replaced_by!: string | null;
  @Described({ description: "A rolled key's end of overlap." }) @NullableSchema() @Timestamp() grace_ends_at!: string | null;
}

export class ExplainedRuleDto {
  @IsInt() @Min(0) index!: number;
  @IsString() effect!: string;
  @IsString() message!: string;
  @Described({ description: '`not_evaluated`: an earlier rule decided, as it would on the call.' }) @IsIn(RULE_OUTCOMES) outcome!: string;
  @Described({ description: "The rule language's error, for `error`." }) @Optional() @IsString() error?: string;
}

/** One step; the fields after `detail` belong to the step that names them. */
export class ExplainStepDto {
  @IsIn(STEPS) step!: string;
  @IsIn(OUTCOMES) outcome!: string;
  @IsString() detail!: string;
  @Optional() @Nested(() => KeyStandingDto) key?: KeyStandingDto;
  @Optional() @SchemaOf(STRINGS) @IsArray() required?: string[];
  @Optional() @SchemaOf(STRINGS) @IsArray() granted?: string[];
  @Optional() @SchemaOf(STRINGS) @IsArray() missing?: string[];
  @Optional() @IsIn(['approved', 'changed']) status?: string;
  @Described({ description: "`connection`: the console page where the key's owner connects to the server." })
  @Optional()
  @IsString()
  connect_url?: string;
  @Optional() @SchemaOf({ type: 'array', items: componentRef('ExplainedRule') }) @IsArray() rules?: ExplainedRuleDto[];
  @Optional() @IsInt() @Min(0) remaining?: number;
  @Optional() @IsInt() @Min(1) limit?: number;
  @Optional() @IsInt() @Min(1) window_seconds?: number;
  @Optional() @IsInt() @Min(1) reset_seconds?: number;
  @Optional() @IsBoolean() needed?: boolean;
  @Described({ description: '`approval`: the approval this very call would meet; `needed` when it has none yet.' })
  @Optional()
  @IsIn(['needed', 'pending', 'granted', 'denied'])
  approval?: string;
  @Optional() @Uuid() approval_id?: string;
}

@JSONSchema({ description: 'What a tools/call of the tool by the key would meet on /mcp, step by step; nothing is spent or contacted.' })
export class ToolExplanationDto {
  @Uuid() key_id!: string;
  @IsString() tool!: string;
  @Described({ description: '`needs_arguments`: no step refuses, but a rule reads arguments the request did not give.' })
  @IsIn(['allowed', 'refused', 'needs_arguments'])
  decision!: string;
  @Described({ description: 'The first step that refuses (or cannot decide), in words.' }) @IsString() reason!: string;
  @SchemaOf({ type: 'array', items: componentRef('ExplainStep') }) @IsArray() steps!: ExplainStepDto[];

  static from(explained: ToolCallExplanation): ToolExplanationDto {
    return {
      key_id: explained.keyId,
      tool: explained.tool,
      decision: explained.decision,
      reason: explained.reason,
      steps: explained.steps.map(stepOf),
    };
  }
}

export class KeyToolDto {
  @Described({ description: 'As a client calls it on /mcp.' }) @IsString() name!: string;
  @Described({ description: 'The MCP server it comes from; null for a built-in tool.' }) @NullableSchema() @IsString() server!:
    string | null;
  @Described({ description: 'What listing it takes.' }) @SchemaOf(STRINGS) @IsArray() required_scopes!: string[];
  @IsBoolean() visible!: boolean;
  @Described({ description: 'The first step that hides it.' }) @Optional() @IsIn(['key', 'scope', 'pin']) hidden_by?: string;
  @Optional() @IsString() reason?: string;
}

@JSONSchema({ description: "The tools the built-ins and the key owner's MCP servers offer, visible as the key's tools/list shows them." })
export class KeyToolsDto {
  @Uuid() key_id!: string;
  @SchemaOf({ type: 'array', items: componentRef('KeyTool') }) @IsArray() tools!: KeyToolDto[];
  @Described({ description: 'The next page, as `cursor`; null on the last.' }) @NullableSchema() @IsString() next_cursor!: string | null;

  static from({ keyId, tools, nextCursor }: KeyTools): KeyToolsDto {
    return { key_id: keyId, tools: tools.map(toolOf), next_cursor: nextCursor };
  }
}

function toolOf({ name, server, requiredScopes, visible, hiddenBy, reason }: KeyTool): KeyToolDto {
  return {
    name,
    server,
    required_scopes: [...requiredScopes],
    visible,
    ...(hiddenBy && { hidden_by: hiddenBy }),
    ...(reason && { reason }),
  };
}

/** An allow-list of each step's fields, in wire names. */
function stepOf(step: ExplainStep): ExplainStepDto {
  const { step: name, outcome, detail } = step;
  const base = { step: name, outcome, detail };
  switch (step.step) {
    case 'key':
      return { ...base, key: standingOf(step.key) };
    case 'scope':
      return { ...base, required: [...step.required], granted: [...step.granted], missing: [...step.missing] };
    case 'pin':
      return { ...base, ...(step.status && { status: step.status }) };
    case 'connection':
      return { ...base, ...(step.connectUrl && { connect_url: step.connectUrl }) };
    case 'rules':
      return { ...base, rules: step.rules.map(ruleOf) };
    case 'rate_limit':
      return {
        ...base,
        ...(step.remaining !== undefined && {
          remaining: step.remaining,
          limit: step.limit,
          window_seconds: step.windowSeconds,
          reset_seconds: step.resetSeconds,
        }),
      };
    case 'quota':
      return { ...base, ...(step.remaining !== undefined && { remaining: step.remaining }) };
    case 'approval':
      return {
        ...base,
        needed: step.needed,
        ...(step.approval && { approval: step.approval }),
        ...(step.approvalId && { approval_id: step.approvalId }),
      };
    default:
      return base;
  }
}

function standingOf(key: KeyStanding): KeyStandingDto {
  return {
    state: key.state,
    usable: key.usable,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    replaced_by: key.replacedBy,
    grace_ends_at: key.graceEndsAt?.toISOString() ?? null,
  };
}

function ruleOf({ index, effect, message, outcome, error }: ExplainedRule): ExplainedRuleDto {
  return { index, effect, message, outcome, ...(error !== undefined && { error }) };
}
