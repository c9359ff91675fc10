import { IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { MAX_MODE_NAME_LENGTH } from '../../../domain/mode';
import { NAME_REQUIRED, SCOPE_LIST } from './common-fields';
import { MODE_TOO_LONG } from './mode-tool-config.dto';
import { SchemaOf, Timestamp, Uuid } from './wire-decorators';

/** POST /api/v1/mode-sessions. */
export class StartModeSessionDto {
  @Uuid('must be a UUID') agent_role_id!: string;

  @MaxLength(MAX_MODE_NAME_LENGTH, { message: MODE_TOO_LONG })
  @IsString({ message: NAME_REQUIRED })
  mode!: string;
}

/** The spec's array form of effective scopes (empty = full access), and `full_access` saying so plainly. */
export class ModeSessionDto {
  @Uuid() id!: string;
  @Uuid() agent_role_id!: string;
  @IsString() mode!: string;
  @Uuid() user_id!: string;
  @Timestamp() started_at!: string;
  @SchemaOf(SCOPE_LIST) @IsArray() effective_scopes!: string[];
  @IsBoolean() full_access!: boolean;
}
