import { Allow } from 'class-validator';

/** Fields accepted by POST and PATCH /api/v1/agent-roles; values are checked by the use-cases. */
export class AgentRoleDto {
  @Allow() name?: unknown;
  @Allow() description?: unknown;
  @Allow() platform_scopes?: unknown;
}
