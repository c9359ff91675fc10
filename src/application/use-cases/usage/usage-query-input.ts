import { Actor } from '../../../domain/actor';
import { ValidationError } from '../../../domain/errors';
import { BUCKET_MS, BUCKET_SIZES, BucketSize, bucketCeil, bucketStart } from '../../../domain/usage';
import { UsageGroupBy } from '../../ports/usage-store.port';
import { optional } from '../audit-events/audit-query';
import { parseFields, requireUuid } from '../guards';
import { isoInstant } from '../iso-instant';

/** GET /api/v1/usage's query, as the edge received it (every field optional, each parsed here). */
export interface GetUsageInput {
  actor: Actor;
  keyId?: unknown;
  tool?: unknown;
  from?: unknown;
  to?: unknown;
  bucket?: unknown;
  groupBy?: unknown;
  userId?: unknown;
}

export interface ParsedUsageQuery {
  keyId?: string;
  tool?: string;
  from: Date;
  to: Date;
  size: BucketSize;
  groupBy?: UsageGroupBy;
  userId?: string;
}

/** Buckets one answer spans at most (24 h of minutes, 60 days of hours, about 4 years of days). */
export const MAX_USAGE_BUCKETS = 1440;
const DEFAULT_RANGE_MS = 24 * 3_600_000;
const GROUPS: readonly UsageGroupBy[] = ['tool', 'outcome', 'key', 'user'];
const MAX_TOOL_NAME = 512;

/** Each field parsed (every failure named at once), the range defaulted, aligned and bounded. */
export function parseUsageQuery(input: GetUsageInput, now: Date): ParsedUsageQuery {
  const fields = parseFields<{
    keyId: string;
    tool: string;
    from: Date;
    to: Date;
    size: BucketSize;
    groupBy: UsageGroupBy;
    userId: string;
  }>({
    keyId: optional(input.keyId, 'key_id', requireUuid),
    tool: optional(input.tool, 'tool', parseTool),
    from: optional(input.from, 'from', parseInstant),
    to: optional(input.to, 'to', parseInstant),
    size: optional(input.bucket, 'bucket', (value, field) => oneOf(value, field, BUCKET_SIZES)),
    groupBy: optional(input.groupBy, 'group_by', (value, field) => oneOf(value, field, GROUPS)),
    userId: optional(input.userId, 'user_id', requireUuid),
  });
  const size = fields.size ?? 'hour';
  const to = fields.to ?? now;
  const from = fields.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() >= to.getTime()) throw ValidationError.single('from', 'must be before to');
  const aligned = { from: bucketStart(from, size), to: bucketCeil(to, size) };
  if ((aligned.to.getTime() - aligned.from.getTime()) / BUCKET_MS[size] > MAX_USAGE_BUCKETS) {
    throw ValidationError.single('from', `the range may span at most ${MAX_USAGE_BUCKETS} ${size} buckets`);
  }
  return { ...fields, ...aligned, size };
}

function parseTool(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > MAX_TOOL_NAME) {
    throw ValidationError.single(field, `must be a tool name of at most ${MAX_TOOL_NAME} characters`);
  }
  return value;
}

function parseInstant(value: unknown, field: string): Date {
  const at = isoInstant(value);
  if (!at) throw ValidationError.single(field, 'must be an ISO-8601 timestamp with a time zone');
  return at;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw ValidationError.single(field, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}
