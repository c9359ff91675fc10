import { IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { MAX_USER_SECRET } from '../../../application/use-cases/gateway/mcp-connections/user-secret';
import { Described, NullableSchema, SchemaOf, Timestamp, Uuid } from './wire-decorators';

/** POST /api/v1/mcp-servers/:id/connection: the user's own secret for a user_secret server; nothing for an oauth server. */
export class McpConnectionInputDto {
  @SchemaOf({ type: 'string', minLength: 1, maxLength: MAX_USER_SECRET })
  @Described({
    description: 'user_secret servers (required): sent as `header: prefix + secret` on your calls only; stored encrypted, never shown.',
  })
  @IsOptional()
  @IsString({ message: `is required: a string of 1 to ${MAX_USER_SECRET} characters` })
  secret?: string;
}

/** POST /api/v1/mcp-servers/:id/connection for an oauth server: where to send the user's browser. */
export class McpAuthorizationStartDto {
  @SchemaOf({ type: 'string', format: 'uri' })
  @Described({
    description:
      "The upstream authorization server's authorization URL (PKCE, resource indicator); it sends the browser back to keygate's callback, which stores the tokens and goes on to the console's connect page. Valid for ten minutes, once.",
  })
  @IsString()
  authorization_url!: string;
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
