import { IsInt, IsString } from 'class-validator';
import { Described, Optional, SchemaOf, Uuid } from './wire-decorators';

/**
 * The introspection form (RFC 7662 section 2.1). A schema only: the order of
 * checks is JWT, format, admin, then `token`, so a missing token is a 400
 * only for an admin, and IntrospectKey checks it after the admin check.
 */
export class IntrospectionFormDto {
  @IsString() token!: string;
  @Optional() @Described({ description: 'Accepted and ignored.' }) @IsString() token_type_hint?: string;
}

/** Unknown, malformed, revoked and expired keys alike: nothing more. */
export class InactiveIntrospectionDto {
  @SchemaOf({ const: false }) @IsString() active!: false;
}

export class ActiveIntrospectionDto {
  @SchemaOf({ const: true }) @IsString() active!: true;
  @SchemaOf({ const: 'api_key' }) @IsString() token_type!: 'api_key';
  @Described({ description: 'Every scope granted, space-separated.' }) @IsString() scope!: string;
  @Uuid() sub!: string;
  @Uuid() jti!: string;
  @IsInt() iat!: number;
  @Optional() @Described({ description: 'Absent when the key never expires.' }) @IsInt() exp?: number;
}
