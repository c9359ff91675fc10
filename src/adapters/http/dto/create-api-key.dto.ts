import { Allow } from 'class-validator';

/** The fields POST /api/v1/api-keys accepts; their values are checked by CreateKey. */
export class CreateApiKeyDto {
  @Allow() name?: unknown;
  @Allow() user_id?: unknown;
  @Allow() expires_at?: unknown;
  @Allow() scopes?: unknown;
  @Allow() rate_limit?: unknown;
  @Allow() quota?: unknown;
}
