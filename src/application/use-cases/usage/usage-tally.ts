import { addHistogram, BUCKET_SIZES, bucketStart, emptyHistogram, latencyBucket, OTHER_TOOL, UsageOutcome } from '../../../domain/usage';
import { UsageRow } from '../../ports/usage-store.port';

/** One counted tools/call. */
export interface UsageEvent {
  userId: string;
  /** Null for a call made with a user's OAuth access token. */
  keyId: string | null;
  tool: string;
  outcome: UsageOutcome;
  /** 0 for a call refused before it ran. */
  durationMs: number;
  /** When the call ended: the minute it counts in. */
  at: Date;
}

export interface UsageTallyBounds {
  /** Distinct entries kept before a new one's tool is counted as `other`. */
  maxEntries: number;
  /** Distinct entries kept at all; past it a new entry is dropped (and counted in `dropped`). */
  hardMaxEntries: number;
}

export const DEFAULT_TALLY_BOUNDS: UsageTallyBounds = { maxEntries: 10_000, hardMaxEntries: 11_000 };

/** The counts of one (minute, user, key, tool, outcome). */
export type UsageEntry = Omit<UsageRow, 'size'>;

/**
 * A replica's usage counts since its last flush, per (minute, user, key,
 * tool, outcome), in memory: recording is a map update, never a write. The
 * map is bounded (a key holder calling a thousand made-up tools must not
 * grow it without end): past `maxEntries` a new entry's tool is `other`,
 * past `hardMaxEntries` it is dropped and counted.
 */
export class UsageTally {
  private entries = new Map<string, UsageEntry>();
  /** Calls dropped since the last drain because the map was full. */
  private droppedCalls = 0;

  constructor(private readonly bounds: UsageTallyBounds = DEFAULT_TALLY_BOUNDS) {}

  get size(): number {
    return this.entries.size;
  }

  record(event: UsageEvent): void {
    const minute = bucketStart(event.at, 'minute');
    const durationMs = Number.isFinite(event.durationMs) && event.durationMs > 0 ? event.durationMs : 0;
    const bucket = latencyBucket(durationMs);
    // The common case, an entry already counting this minute, allocates nothing.
    const seen = this.entries.get(identityOf(minute.getTime(), event.userId, event.keyId, event.tool, event.outcome));
    if (seen) {
      seen.count += 1;
      seen.latencySumMs += durationMs;
      seen.histogram[bucket] += 1;
      return;
    }
    const histogram = emptyHistogram();
    histogram[bucket] = 1;
    const { userId, keyId, tool, outcome } = event;
    this.add({ bucketStart: minute, userId, keyId, tool, outcome, count: 1, latencySumMs: durationMs, histogram });
  }

  /** Everything counted since the last drain, as rows of every bucket size; the tally starts empty again. */
  drain(): { entries: UsageEntry[]; dropped: number } {
    const entries = [...this.entries.values()];
    const dropped = this.droppedCalls;
    this.entries = new Map();
    this.droppedCalls = 0;
    return { entries, dropped };
  }

  /** Puts back what a failed flush took, to be written at the next one (within the same bounds). */
  restore(entries: readonly UsageEntry[]): void {
    for (const entry of entries) this.add(entry);
  }

  private add(entry: UsageEntry): void {
    let key = identity(entry, entry.tool);
    let seen = this.entries.get(key);
    if (!seen && this.entries.size >= this.bounds.maxEntries) {
      key = identity(entry, OTHER_TOOL);
      seen = this.entries.get(key);
      if (!seen && this.entries.size >= this.bounds.hardMaxEntries) {
        this.droppedCalls += entry.count;
        return;
      }
      entry = { ...entry, tool: OTHER_TOOL };
    }
    if (!seen) {
      this.entries.set(key, { ...entry, histogram: [...entry.histogram] });
      return;
    }
    seen.count += entry.count;
    seen.latencySumMs += entry.latencySumMs;
    addHistogram(seen.histogram, entry.histogram);
  }
}

/** Minute entries with their hour and day rows: a flush adds all three, so hours and days hold every flushed minute. */
export function rowsOf(entries: readonly UsageEntry[]): UsageRow[] {
  return entries.flatMap((entry) => BUCKET_SIZES.map((size) => ({ ...entry, size, bucketStart: bucketStart(entry.bucketStart, size) })));
}

function identity(entry: UsageEntry, tool: string): string {
  return identityOf(entry.bucketStart.getTime(), entry.userId, entry.keyId, tool, entry.outcome);
}

function identityOf(minute: number, userId: string, keyId: string | null, tool: string, outcome: string): string {
  return `${minute}\u0000${userId}\u0000${keyId ?? ''}\u0000${tool}\u0000${outcome}`;
}
