import { BucketSize, UsageOutcome } from '../../domain/usage';

/** Counts of one (bucket, user, key, tool, outcome). */
export interface UsageRow {
  size: BucketSize;
  bucketStart: Date;
  userId: string;
  /** Null for calls made with a user's OAuth access token. */
  keyId: string | null;
  tool: string;
  outcome: UsageOutcome;
  count: number;
  latencySumMs: number;
  /** Counts per latency bucket (LATENCY_BOUNDS_MS, then +Inf). */
  histogram: number[];
}

/** Writes a flush: every row added to what is stored, in one statement, all or none. */
export interface UsageWriter {
  add(rows: readonly UsageRow[]): Promise<void>;
}

export type UsageGroupBy = 'tool' | 'outcome' | 'key' | 'user';

export interface UsageQuery {
  size: BucketSize;
  /** Inclusive, aligned to the size. */
  from: Date;
  /** Exclusive, aligned to the size. */
  to: Date;
  /** Undefined: every user. */
  userId?: string;
  keyId?: string;
  tool?: string;
  groupBy?: UsageGroupBy;
}

/** One bucket of one group: the rows summed. */
export interface UsagePoint {
  start: Date;
  /** The group's value (null: no grouping, or a key-less call under group_by=key). */
  group: string | null;
  count: number;
  histogram: number[];
}

export interface KeyLabel {
  prefix: string;
  name: string;
}

export interface UsageReader {
  /** Points of the range, ascending by start. */
  points(query: UsageQuery): Promise<UsagePoint[]>;
  /** The prefix and name of those keys that still exist. */
  keyLabels(ids: readonly string[]): Promise<Map<string, KeyLabel>>;
}
