import { Actor } from '../../../domain/actor';
import { ForbiddenError, NotFoundError } from '../../../domain/errors';
import { BucketSize, bucketStart } from '../../../domain/usage';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { UsageGroupBy, UsagePoint, UsageReader } from '../../ports/usage-store.port';
import { GetUsageInput, ParsedUsageQuery, parseUsageQuery } from './usage-query-input';
import { seriesOf, UsageSeries, UsageStats } from './usage-series';

export interface UsageReport {
  bucket: BucketSize;
  from: Date;
  to: Date;
  /** Minute buckets before this are final: every replica has flushed them. */
  closedUntil: Date;
  groupBy: UsageGroupBy | null;
  series: UsageSeries[];
  total: UsageStats;
}

/** The group of key-less calls (made with a user's OAuth access token) under group_by=key. */
export const OAUTH_GROUP = 'oauth';

/**
 * GET /api/v1/usage: counts and latency of tool calls over a range, in
 * minute, hour or day buckets, optionally grouped. A non-admin reads only
 * their own keys (another user's key is a 404, naming another user or
 * group_by=user a 403); an admin any user's, or every user's with
 * group_by=user. Reads the usage tables only, never the audit trail.
 */
export class GetUsage {
  constructor(
    private readonly reader: UsageReader,
    private readonly keys: ApiKeyRepository,
    private readonly clock: Clock,
    /** USAGE_FLUSH_INTERVAL_MS: how far behind a replica's counts may be. */
    private readonly flushIntervalMs: number,
  ) {}

  async execute(input: GetUsageInput): Promise<UsageReport> {
    const now = this.clock.now();
    const query = parseUsageQuery(input, now);
    const userId = await this.usersOf(input.actor, query);
    const points = await this.reader.points({ ...query, userId });
    const { series, total } = seriesOf(points, groupOf(query.groupBy));
    if (query.groupBy === 'key') await this.label(series);
    return {
      bucket: query.size,
      from: query.from,
      to: query.to,
      closedUntil: closedUntil(now, this.flushIntervalMs),
      groupBy: query.groupBy ?? null,
      series,
      total,
    };
  }

  /** The user whose keys are counted (undefined: every user, for an admin). */
  private async usersOf(actor: Actor, query: ParsedUsageQuery): Promise<string | undefined> {
    const self = actor.userId.toLowerCase();
    if (!actor.isAdmin) {
      if (query.groupBy === 'user') throw new ForbiddenError('Only admins may group usage by user');
      if (query.userId !== undefined && query.userId !== self) throw new ForbiddenError("Only admins may read another user's usage");
    }
    if (query.keyId !== undefined) {
      const key = await this.keys.findById(query.keyId);
      const owner = key?.userId.toLowerCase();
      if (!actor.isAdmin && owner !== self) throw new NotFoundError('API key', query.keyId);
      if (query.userId !== undefined && key && owner !== query.userId) throw new NotFoundError('API key', query.keyId);
      // An admin naming a key reads it whoever owns it (even once it is gone from api_keys).
      if (actor.isAdmin && query.userId === undefined) return undefined;
    }
    if (query.userId !== undefined) return query.userId;
    return actor.isAdmin && query.groupBy === 'user' ? undefined : self;
  }

  private async label(series: UsageSeries[]): Promise<void> {
    const labels = await this.reader.keyLabels(
      series.map((one) => one.group).filter((group) => group !== OAUTH_GROUP && group !== 'other'),
    );
    for (const one of series) {
      const label = labels.get(one.group);
      if (label) Object.assign(one, { keyPrefix: label.prefix, keyName: label.name });
    }
  }
}

function groupOf(groupBy: UsageGroupBy | undefined): (point: UsagePoint) => string {
  if (groupBy === undefined) return () => 'all';
  if (groupBy === 'key') return (point) => point.group ?? OAUTH_GROUP;
  return (point) => point.group ?? '';
}

/** The start of the current minute minus the flush interval, floored to the minute. */
export function closedUntil(now: Date, flushIntervalMs: number): Date {
  return bucketStart(bucketStart(now, 'minute').getTime() - flushIntervalMs, 'minute');
}
