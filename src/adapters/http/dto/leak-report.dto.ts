import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_SOURCE, MAX_TOKEN, MAX_TYPE, MAX_URL } from '../../../application/use-cases/report-leaked-keys/leak-report';
import { SHA256_HEX } from './common-fields';
import { Optional } from './wire-decorators';

/**
 * One element of a leak report, as a secret scanner sends it. A schema only:
 * the report is parsed by ReportLeakedKeys after the signature over its raw
 * bytes holds, never before, so no check here may answer first.
 */
@JSONSchema({ additionalProperties: true, description: 'Other fields are ignored, so the scanner can extend its format.' })
export class LeakReportEntryDto {
  @MinLength(1) @MaxLength(MAX_TOKEN) @IsString() token!: string;
  @MinLength(1) @MaxLength(MAX_TYPE) @IsString() type!: string;
  @Optional() @MaxLength(MAX_URL) @IsString() url?: string;
  @Optional() @MaxLength(MAX_SOURCE) @IsString() source?: string;
}

/** GitHub's secret scanning partner answer for one reported token; the token itself is never echoed. */
export class LeakVerdictDto {
  @Matches(SHA256_HEX) token_hash!: string;
  @IsString() token_type!: string;
  @IsIn(['true_positive', 'false_positive']) label!: 'true_positive' | 'false_positive';
}
