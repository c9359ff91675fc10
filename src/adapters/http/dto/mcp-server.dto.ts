import { Allow, IsIn, IsObject, IsString, Matches, ValidateBy } from 'class-validator';
import { SHA256_HEX } from './common-fields';
import { AUTH_SCHEMA } from './mcp-server-auth.dto';
import { TOOL_RULES_SCHEMA } from './tool-rule.dto';
import { componentRef, Optional, SchemaOf, Timestamp, Uuid } from './wire-decorators';

const sha256Hex = { type: 'string', pattern: SHA256_HEX.source };

const scopeMap = (what: string) => ({
  type: 'object',
  description: `${what} → every scope needed.`,
  additionalProperties: { type: 'array', items: componentRef('Scope') },
});
const TOOL_SCOPES = scopeMap('Upstream tool name');
const RESOURCE_SCOPES = scopeMap('Resource URI or URI template');
const PROMPT_SCOPES = scopeMap('Prompt name');

/** Each entry a tool name, or a name with the sha256 of the definition the owner checked. */
const TOOL_APPROVALS = { type: 'array', items: { oneOf: [{ type: 'string' }, componentRef('ToolApproval')] } };

const isStringMap = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');

/** `headers`: header names to values. */
function StringMap(message: string) {
  return ValidateBy({ name: 'isStringMap', validator: { validate: isStringMap } }, { message });
}

/**
 * POST /api/v1/mcp-servers: the wire shape, with the mcp_servers policy's
 * wording. The policy (shared with the mcp_servers tool) checks the rest:
 * the name's characters, an http(s) URL, header names and values, each
 * scope in the maps.
 */
export class McpServerInputDto {
  @IsString({ message: 'is required: 1 to 32 of a-z, 0-9 and -' })
  name!: string;

  @SchemaOf({ type: 'string', format: 'uri' })
  @IsString({ message: 'is required: an http or https URL of a Streamable HTTP MCP endpoint' })
  url!: string;

  @Optional()
  @SchemaOf({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Sending the mask `********` back keeps the stored value.',
  })
  @StringMap('must be an object of header names to string values')
  headers?: Record<string, string>;

  @Optional()
  @SchemaOf(AUTH_SCHEMA)
  @IsObject({ message: 'must be an object whose type is one of static, oauth, token_exchange, user_secret' })
  auth?: Record<string, unknown>;

  @Optional()
  @SchemaOf(TOOL_SCOPES)
  @IsObject({ message: 'must map tool names to arrays of scopes' })
  tool_scopes?: Record<string, string[]>;

  @Optional()
  @SchemaOf(TOOL_RULES_SCHEMA)
  @IsObject({ message: 'must map tool names to arrays of rules' })
  tool_rules?: Record<string, unknown[]>;

  @Optional()
  @SchemaOf(RESOURCE_SCOPES)
  @IsObject({ message: 'must map resource URIs or URI templates to arrays of scopes' })
  resource_scopes?: Record<string, string[]>;

  @Optional()
  @SchemaOf(PROMPT_SCOPES)
  @IsObject({ message: 'must map prompt names to arrays of scopes' })
  prompt_scopes?: Record<string, string[]>;
}

/** PATCH /api/v1/mcp-servers/:id: any of the create fields, and approve_tools as the mcp_servers tool takes it. */
export class McpServerUpdateDto extends McpServerInputDto {
  @Optional() declare name: string;
  @Optional() declare url: string;

  @Optional()
  @SchemaOf(TOOL_APPROVALS)
  @Allow()
  approve_tools?: unknown[];
}

/** POST /api/v1/mcp-servers/:id/approve-tools; the entries are checked against the server's pins. */
export class ApproveToolsDto {
  @SchemaOf(TOOL_APPROVALS)
  @Allow()
  tools!: unknown[];
}

/** An approve_tools entry naming the definition approved. */
export class ToolApprovalDto {
  @IsString() name!: string;
  @Matches(SHA256_HEX) sha256!: string;
}

export class ToolPinDto {
  @SchemaOf(sha256Hex) @IsString() sha256!: string;
  @IsIn(['approved', 'changed']) status!: 'approved' | 'changed';
  @Optional() @SchemaOf(sha256Hex) @IsString() seen_sha256?: string;
}

/** A server record as shown: header values always masked, every pin. */
export class McpServerDto {
  @Uuid() id!: string;
  @IsString() name!: string;
  @IsString() url!: string;
  @SchemaOf({ type: 'object', additionalProperties: { type: 'string' }, description: 'Values are always `********`.' })
  @IsObject()
  headers!: Record<string, string>;
  @SchemaOf(AUTH_SCHEMA) @IsObject() auth!: Record<string, unknown>;
  @SchemaOf(TOOL_SCOPES) @IsObject() tool_scopes!: Record<string, string[]>;
  @SchemaOf(TOOL_RULES_SCHEMA) @IsObject() tool_rules!: Record<string, unknown[]>;
  @SchemaOf(RESOURCE_SCOPES) @IsObject() resource_scopes!: Record<string, string[]>;
  @SchemaOf(PROMPT_SCOPES) @IsObject() prompt_scopes!: Record<string, string[]>;
  @SchemaOf({ type: 'object', additionalProperties: componentRef('ToolPin') }) @IsObject() tool_pins!: Record<string, ToolPinDto>;
  @Timestamp() created_at!: string;
  @Timestamp() updated_at!: string;
}
