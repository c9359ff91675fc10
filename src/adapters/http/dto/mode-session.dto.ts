import { Allow } from 'class-validator';

/** Fields accepted by POST /api/v1/mode-sessions. */
export class StartModeSessionDto {
  @Allow() agent_role_id?: unknown;
  @Allow() mode?: unknown;
}

/** Fields accepted by POST /api/v1/tool-sets. */
export class ToolSetDto {
  @Allow() agent_role_id?: unknown;
  @Allow() mode_session_id?: unknown;
}
