import { IsIn, IsInt, IsObject, IsString, Matches, Min, ValidateNested } from 'class-validator';
import { AUDIT_ACTIONS, AuditAction, AuditActorType, AuditValue } from '../../../domain/audit';
import { SHA256_HEX } from './common-fields';
import { componentRef, Described, Nested, NullableSchema, SchemaOf, Timestamp, Uuid } from './wire-decorators';

export class AuditActorDto {
  @IsIn(['user', 'key', 'scanner', 'system']) type!: AuditActorType;
  @NullableSchema() @IsString() id!: string | null;
}

export class AuditTargetDto {
  @IsString() type!: string;
  @NullableSchema() @IsString() id!: string | null;
}

/** Exactly what the chain hashes, plus the hash, so anyone holding the JSON can recompute the chain. */
export class AuditEventDto {
  @Uuid() id!: string;
  @IsInt() @Min(1) seq!: number;
  @Timestamp() occurred_at!: string;
  @SchemaOf({ enum: [...AUDIT_ACTIONS] }) @IsIn([...AUDIT_ACTIONS]) action!: AuditAction;
  @Nested(() => AuditActorDto) actor!: AuditActorDto;
  @NullableSchema() @IsString() user_id!: string | null;
  @NullableSchema() @Uuid() key_id!: string | null;
  @Nested(() => AuditTargetDto) target!: AuditTargetDto;
  @NullableSchema() @IsString() request_id!: string | null;
  @NullableSchema() @IsString() ip!: string | null;
  @IsObject() details!: { [field: string]: AuditValue };
  @Described({ description: "SHA-256 over the previous event's hash and this event's canonical JSON." }) @Matches(SHA256_HEX) hash!: string;
}

/** A page of the trail, newest first; `next_cursor` is null on the last page. */
export class AuditPageDto {
  @SchemaOf({ type: 'array', items: componentRef('AuditEvent') }) @ValidateNested() events!: AuditEventDto[];
  @NullableSchema() @IsString() next_cursor!: string | null;
}
