import { ArrayMinSize, IsArray, IsString, MaxLength } from 'class-validator';
import { MAX_MODE_NAME_LENGTH } from '../../../domain/mode';
import { NAME_REQUIRED, SCOPE_LIST } from './common-fields';
import { Optional, SchemaOf, Timestamp, Uuid } from './wire-decorators';

const AT_LEAST_ONE = 'must list at least one scope (an empty array would mean full access)';
export const MODE_TOO_LONG = `must be at most ${MAX_MODE_NAME_LENGTH} characters`;

/** POST /api/v1/mode-tool-configs; the use-case checks the rest (a mode not blank, scopes in the catalog). */
export class ModeToolConfigInputDto {
  @MaxLength(MAX_MODE_NAME_LENGTH, { message: MODE_TOO_LONG })
  @IsString({ message: NAME_REQUIRED })
  mode!: string;

  @SchemaOf({ ...SCOPE_LIST, minItems: 1, description: "Added to the role's scopes while a session of this mode is active." })
  @ArrayMinSize(1, { message: AT_LEAST_ONE })
  @IsArray({ message: ({ value }) => (value === undefined || value === null ? AT_LEAST_ONE : 'must be an array of scope strings') })
  additional_scopes!: string[];
}

/** PATCH /api/v1/mode-tool-configs/:id: any of the fields, checked as at create. */
export class ModeToolConfigUpdateDto extends ModeToolConfigInputDto {
  @Optional() declare mode: string;
  @Optional() declare additional_scopes: string[];
}

export class ModeToolConfigDto {
  @Uuid() id!: string;
  @IsString() mode!: string;
  @SchemaOf(SCOPE_LIST) @IsArray() additional_scopes!: string[];
  @Timestamp() created_at!: string;
  @Timestamp() updated_at!: string;
}
