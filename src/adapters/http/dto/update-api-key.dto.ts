import { Allow } from 'class-validator';

/** The fields PATCH /api/v1/api-keys/:id accepts; their values are checked by UpdateKey. */
export class UpdateApiKeyDto {
  @Allow() name?: unknown;
  @Allow() scopes?: unknown;
  @Allow() expires_at?: unknown;
  @Allow() rate_limit?: unknown;
  @Allow() quota?: unknown;
}

/** The fields POST /api/v1/api-keys/:id/roll accepts; the body itself may be left out. */
export class RollApiKeyDto {
  @Allow() grace_seconds?: unknown;
}
