import { ArrayMaxSize, IsInt, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MAX_FIELD_ERRORS, MAX_MESSAGE_LENGTH } from '../../../domain/errors';
import { componentRef, Described, Optional, SchemaOf } from './wire-decorators';

export class FieldErrorDto {
  @IsString() field!: string;
  @IsString() message!: string;
}

/** RFC 9457, as src/adapters/http/problem.ts sends it (bounded by error-limits.ts). */
export class ProblemDto {
  @Described({ description: 'A stable slug per kind of failure.' }) @Matches(/^urn:keygate:problem:[a-z-]+$/) @IsString() type!: string;
  @MaxLength(MAX_MESSAGE_LENGTH) @IsString() title!: string;
  @IsInt() @Max(599) @Min(400) status!: number;
  @MaxLength(MAX_MESSAGE_LENGTH) @IsString() detail!: string;

  @Optional()
  @SchemaOf({
    type: 'array',
    maxItems: MAX_FIELD_ERRORS,
    description: 'On a 400 (validation-failed): each field or parameter at fault. Values are never quoted.',
    items: componentRef('FieldError'),
  })
  @ArrayMaxSize(MAX_FIELD_ERRORS)
  @ValidateNested()
  errors?: FieldErrorDto[];
}
