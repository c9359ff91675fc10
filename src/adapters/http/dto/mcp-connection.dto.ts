import { IsArray, IsIn, IsString } from 'class-validator';
import { MAX_USER_SECRET } from '../../../application/use-cases/gateway/mcp-connections/user-secret';
import { Described, NullableSchema, SchemaOf, Timestamp, Uuid } from './wire-decorators';

/** POST /api/v1/mcp-servers/:id/connection for a user_secret server: the user's own secret. */
export class McpConnectionInputDto {
  @SchemaOf({ type: 'string', minLength: 1, maxLength: MAX_USER_SECRET })
  @Described({ description: 'Sent as `header: prefix + secret` on your calls only; stored encrypted, never shown.' })
  @IsString({ message: `is required: a string of 1 to ${MAX_USER_SECRET} characters` })
  secret!: string;
}

/** A user's connection to a server: its state, never the secret or a token. */
export class McpConnectionDto {
  @Uuid() server_id!: string;
  @IsIn(['static', 'oauth', 'token_exchange', 'user_secret']) auth_type!: string;
  @Described({ description: '`not_connected` when the user has no connection.' })
  @IsIn(['not_connected', 'pending', 'connected', 'failed'])
  state!: string;
  @NullableSchema() @IsIn(['oauth', 'user_secret']) kind!: string | null;
  @SchemaOf({ type: 'array', items: { type: 'string' } }) @IsArray() scopes!: string[];
  @NullableSchema() @Timestamp() expires_at!: string | null;
  @NullableSchema() @Timestamp() created_at!: string | null;
  @NullableSchema() @Timestamp() updated_at!: string | null;
}
