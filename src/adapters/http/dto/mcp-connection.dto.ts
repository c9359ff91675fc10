import { IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
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
      "The upstream authorization server's authorization URL (PKCE, resource indicator); it sends the browser back to the console's callback page (`/console/connections/callback` under PUBLIC_URL), which completes the connection as the signed-in user. Valid for ten minutes, once, and only for the user who asked.",
  })
  @IsString()
  authorization_url!: string;
}

const CALLBACK_TEXT = { type: 'string', maxLength: 2048 } as const;
const AT_MOST = { message: 'is at most 2048 characters' };

/**
 * POST /api/v1/mcp-servers/connections/callback: the query the authorization
 * server sent the browser back to the console's callback page with, as is.
 */
export class McpConnectionCallbackDto {
  @SchemaOf({ type: 'string', minLength: 1, maxLength: 512 })
  @Described({ description: 'The `state` of the authorization URL keygate answered you (ten minutes, once, yours only).' })
  @MaxLength(512, { message: 'is at most 512 characters' })
  // Checked first (decorators apply bottom-up): a missing state says so, not that it is too long.
  @IsString({ message: 'is required: the state the authorization server sent back' })
  state!: string;

  @SchemaOf(CALLBACK_TEXT)
  @Described({ description: 'The authorization code.' })
  @IsOptional()
  @MaxLength(2048, AT_MOST)
  @IsString()
  code?: string;
  @SchemaOf(CALLBACK_TEXT)
  @Described({ description: 'RFC 9207: the issuer, when the authorization server sent it.' })
  @IsOptional()
  @MaxLength(2048, AT_MOST)
  @IsString()
  iss?: string;
  @SchemaOf(CALLBACK_TEXT)
  @Described({ description: 'The refusal, when the user or the server refused.' })
  @IsOptional()
  @MaxLength(2048, AT_MOST)
  @IsString()
  error?: string;
  @SchemaOf(CALLBACK_TEXT) @IsOptional() @MaxLength(2048, AT_MOST) @IsString() error_description?: string;
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
  @Described({
    description: 'oauth: who you are at the server, as its token answer said (shown as “Connected as …”); null when it did not say.',
  })
  @NullableSchema()
  @IsOptional()
  @IsString()
  account!: string | null;
  @NullableSchema() @Timestamp() created_at!: string | null;
  @NullableSchema() @Timestamp() updated_at!: string | null;
}
