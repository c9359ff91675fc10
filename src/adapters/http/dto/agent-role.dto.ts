import { IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { MAX_DESCRIPTION_LENGTH, MAX_ROLE_NAME_LENGTH } from '../../../domain/agent-role';
import { NAME_REQUIRED, SCOPE_LIST } from './common-fields';
import { Optional, OptionalNullable, SchemaOf, Timestamp, Uuid } from './wire-decorators';

const scopesRequired = ({ value }: { value: unknown }) =>
  value === undefined || value === null ? 'is required: an array of scopes ([] means full access)' : 'must be an array of scope strings';

/** POST /api/v1/agent-roles; the use-case checks the rest (a name not blank, scopes in the catalog). */
export class AgentRoleInputDto {
  @MaxLength(MAX_ROLE_NAME_LENGTH, { message: `must be at most ${MAX_ROLE_NAME_LENGTH} characters` })
  @IsString({ message: NAME_REQUIRED })
  name!: string;

  @OptionalNullable()
  @MaxLength(MAX_DESCRIPTION_LENGTH, { message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` })
  @IsString({ message: 'must be a string' })
  description?: string | null;

  /** Required, null too: a role widened to everything must say `[]`. */
  @SchemaOf(SCOPE_LIST)
  @IsArray({ message: scopesRequired })
  platform_scopes!: string[];
}

/** PATCH /api/v1/agent-roles/:id: any of the fields, checked as at create. */
export class AgentRoleUpdateDto extends AgentRoleInputDto {
  @Optional() declare name: string;
  @Optional() declare platform_scopes: string[];
}

export class AgentRoleDto {
  @Uuid() id!: string;
  @IsString() name!: string;
  @IsString() description!: string;
  @SchemaOf(SCOPE_LIST) @IsArray() platform_scopes!: string[];
  @IsBoolean() is_system!: boolean;
  @Timestamp() created_at!: string;
  @Timestamp() updated_at!: string;
}
