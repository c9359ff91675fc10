import { IsArray, IsBoolean, IsIn, IsObject, IsString, ValidateNested } from 'class-validator';
import { SCOPE_LIST } from './common-fields';
import { componentRef, Optional, OptionalNullable, SchemaOf, Uuid } from './wire-decorators';

/** POST /api/v1/tool-sets. */
export class ToolSetRequestDto {
  @Uuid('must be a UUID') agent_role_id!: string;

  @OptionalNullable()
  @Uuid('must be a UUID')
  mode_session_id?: string | null;
}

export class ToolDto {
  @IsString() name!: string;
  @Optional() @IsString() title?: string;
  @IsString() description!: string;
  @IsObject() input_schema!: Record<string, unknown>;
}

export class ToolSetDto {
  @SchemaOf(SCOPE_LIST) @IsArray() effective_scopes!: string[];
  @IsBoolean() full_access!: boolean;
  @SchemaOf({ type: 'array', items: componentRef('Tool') }) @ValidateNested() tools!: ToolDto[];
}

export class ScopeCatalogEntryDto {
  @SchemaOf(componentRef('Scope')) @IsString() scope!: string;
  @IsString() resource!: string;
  @IsIn(['read', 'write']) permission!: 'read' | 'write';
  @IsString() covers!: string;
}
