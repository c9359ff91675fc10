import { Allow } from 'class-validator';

/** Fields accepted by POST and PATCH /api/v1/mode-tool-configs. */
export class ModeToolConfigDto {
  @Allow() mode?: unknown;
  @Allow() additional_scopes?: unknown;
}
