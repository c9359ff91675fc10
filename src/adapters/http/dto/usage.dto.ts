import { IsIn, IsInt, IsNumber, IsString, Min, ValidateNested } from 'class-validator';
import { UsageReport } from '../../../application/use-cases/usage/get-usage.use-case';
import { UsageStats } from '../../../application/use-cases/usage/usage-series';
import { BUCKET_SIZES } from '../../../domain/usage';
import { componentRef, Described, Nested, NullableSchema, Optional, SchemaOf, Timestamp } from './wire-decorators';

const P50 = { description: 'Median latency in ms, estimated from the latency histogram; null when count is 0.' };
const P95 = { description: '95th-percentile latency in ms, estimated from the latency histogram; null when count is 0.' };

export class UsageStatsDto {
  @IsInt() @Min(0) count!: number;
  @Described(P50) @NullableSchema() @IsNumber() p50_ms!: number | null;
  @Described(P95) @NullableSchema() @IsNumber() p95_ms!: number | null;
}

/** One bucket with data. */
export class UsagePointDto {
  @Described({ description: 'The bucket start (UTC-aligned).' }) @Timestamp() start!: string;
  @IsInt() @Min(0) count!: number;
  @Described(P50) @NullableSchema() @IsNumber() p50_ms!: number | null;
  @Described(P95) @NullableSchema() @IsNumber() p95_ms!: number | null;
}

export class UsageSeriesDto {
  @Described({
    description:
      'The group value: a tool name, an outcome, a key id (`oauth` for calls made with an access token), a user id; `all` without group_by; `other` for the series past the first 50.',
  })
  @IsString()
  group!: string;
  @Described({ description: 'group_by=key, when the key still exists.' }) @Optional() @IsString() key_prefix?: string;
  @Described({ description: 'group_by=key, when the key still exists.' }) @Optional() @IsString() key_name?: string;
  @Nested(() => UsageStatsDto) total!: UsageStatsDto;
  @Described({ description: 'Only buckets with data, ascending by start.' })
  @SchemaOf({ type: 'array', items: componentRef('UsagePoint') })
  @ValidateNested()
  points!: UsagePointDto[];
}

/** GET /api/v1/usage (docs/usage.md). */
export class UsageReportDto {
  @IsIn([...BUCKET_SIZES]) bucket!: string;
  @Described({ description: 'Inclusive, floored to the bucket.' }) @Timestamp() from!: string;
  @Described({ description: 'Exclusive, ceiled to the bucket.' }) @Timestamp() to!: string;
  @Described({ description: 'Minute buckets before this are final (every replica has flushed them); later ones may still grow.' })
  @Timestamp()
  closed_until!: string;
  @NullableSchema() @IsIn(['tool', 'outcome', 'key', 'user']) group_by!: string | null;
  @Described({ description: 'Largest total first, at most 50 (the rest summed into `other`).' })
  @SchemaOf({ type: 'array', items: componentRef('UsageSeries') })
  @ValidateNested()
  series!: UsageSeriesDto[];
  @Nested(() => UsageStatsDto) total!: UsageStatsDto;

  static from(report: UsageReport): UsageReportDto {
    return {
      bucket: report.bucket,
      from: report.from.toISOString(),
      to: report.to.toISOString(),
      closed_until: report.closedUntil.toISOString(),
      group_by: report.groupBy,
      series: report.series.map((one) => ({
        group: one.group,
        ...(one.keyPrefix !== undefined && { key_prefix: one.keyPrefix }),
        ...(one.keyName !== undefined && { key_name: one.keyName }),
        total: stats(one.total),
        points: one.points.map((point) => ({ start: point.start.toISOString(), ...stats(point) })),
      })),
      total: stats(report.total),
    };
  }
}

function stats(value: UsageStats): UsageStatsDto {
  return { count: value.count, p50_ms: value.p50Ms, p95_ms: value.p95Ms };
}
