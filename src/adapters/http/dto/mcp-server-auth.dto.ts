import { IsArray, IsIn, IsString } from 'class-validator';
import { componentRef, Described, Optional, SchemaOf, schemaName } from './wire-decorators';

const CLIENT_SECRET = 'A secret: stored encrypted, always shown as `********`; sending the mask back keeps the stored value.';

/** `auth` of a server record: the record's headers, shared by every caller (the default). */
export class StaticAuthDto {
  @IsIn(['static']) type!: 'static';
}

/** keygate as an OAuth 2.1 client of the upstream's authorization server, one connection per user. */
export class OAuthAuthDto {
  @IsIn(['oauth']) type!: 'oauth';
  @Optional() @IsString() client_id?: string;
  @Optional() @Described({ description: CLIENT_SECRET }) @IsString() client_secret?: string;
  @Optional() @SchemaOf({ type: 'array', items: { type: 'string' } }) @IsArray() scopes?: string[];
}

/** The caller's OAuth access token exchanged (RFC 8693) for one for the upstream, per call. */
export class TokenExchangeAuthDto {
  @IsIn(['token_exchange']) type!: 'token_exchange';
  @SchemaOf({ type: 'string', format: 'uri' }) @IsString() token_endpoint!: string;
  @IsString() audience!: string;
  @IsString() client_id!: string;
  @Optional() @Described({ description: CLIENT_SECRET }) @IsString() client_secret?: string;
}

/** Each user stores their own secret for the server, sent as `header: prefix + secret`. */
export class UserSecretAuthDto {
  @IsIn(['user_secret']) type!: 'user_secret';
  @Described({ description: 'An HTTP header name, such as `Authorization`.' }) @IsString() header!: string;
  @Optional() @Described({ description: 'Put before the secret, such as `Bearer `.' }) @IsString() prefix?: string;
}

/** The schema of `auth`: one of the four shapes, by `type`. */
export const AUTH_SCHEMA = {
  oneOf: [StaticAuthDto, OAuthAuthDto, TokenExchangeAuthDto, UserSecretAuthDto].map((Dto) => componentRef(schemaName(Dto))),
  description: 'How keygate authenticates to the server; `{"type":"static"}` (the record\'s headers) when left out.',
};
