import { Allow } from 'class-validator';

/** The fields POST /api/v1/mcp-servers accepts; their values are checked by CreateMcpServer (the mcp_servers policy). */
export class CreateMcpServerDto {
  @Allow() name?: unknown;
  @Allow() url?: unknown;
  @Allow() headers?: unknown;
  @Allow() tool_scopes?: unknown;
  @Allow() resource_scopes?: unknown;
  @Allow() prompt_scopes?: unknown;
}

/** PATCH /api/v1/mcp-servers/:id: any of the create fields, and approve_tools as the mcp_servers tool takes it. */
export class UpdateMcpServerDto extends CreateMcpServerDto {
  @Allow() approve_tools?: unknown;
}

/** POST /api/v1/mcp-servers/:id/approve-tools. */
export class ApproveToolsDto {
  @Allow() tools?: unknown;
}
