import { DataSource } from 'typeorm';
import { RateDecision, RateStanding } from '../../../application/ports/usage-budget.port';
import { RateLimit } from '../../../domain/api-key';
import { databaseCall } from '../database-unavailable';

/** A replica takes 1/20 of a window's allowance at a time: at most that much per replica goes unused, and never more than the limit is admitted. */
const SHARE_DIVISOR = 20;

interface Window {
  start: number;
  windowSeconds: number;
  limit: number;
  /** Requests this replica may still admit from the shares it took. */
  unspent: number;
  /** What the window had handed out, as of this replica's last share, at most the limit. */
  granted: number;
  /** No share left to take in this window. */
  exhausted: boolean;
}

/**
 * The rate half of the budget: fixed windows aligned to the epoch; a replica
 * takes a share of the window's allowance with one upsert and admits from
 * memory while it lasts. key_rate_windows counts the shares handed out, past
 * the limit too, so the part of each share under the limit is known exactly
 * from the total the upsert returns.
 */
export class RateWindows {
  /** By budget and window length: a PATCH to the length leaves requests of both in flight a while, each kind with its own window. */
  private readonly windows = new Map<string, Window>();
  private readonly taking = new Map<string, Promise<void>>();

  constructor(private readonly dataSource: DataSource) {}

  async admit(budgetId: string, { limit, windowSeconds }: RateLimit, now: Date): Promise<RateDecision> {
    const seconds = now.getTime() / 1000;
    const start = Math.floor(seconds / windowSeconds) * windowSeconds;
    const slot = `${windowSeconds}:${budgetId}`;
    for (;;) {
      const window = this.windowOf(slot, start, windowSeconds, limit);
      const resetSeconds = Math.max(1, Math.ceil(window.start + windowSeconds - seconds));
      const decision = (admitted: boolean): RateDecision => ({
        admitted,
        limit,
        windowSeconds,
        remaining: Math.max(0, limit - window.granted + window.unspent),
        resetSeconds,
      });
      if (window.unspent > 0) {
        window.unspent -= 1;
        return decision(true);
      }
      if (window.exhausted) return decision(false);
      const pending = this.taking.get(slot);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const take = this.takeShare(budgetId, window);
      this.taking.set(slot, take);
      try {
        await take;
      } finally {
        this.taking.delete(slot);
      }
    }
  }

  /** The slot's current window as it stands: one read, nothing taken or counted. */
  async peek(budgetId: string, { limit, windowSeconds }: RateLimit, now: Date): Promise<RateStanding> {
    const seconds = now.getTime() / 1000;
    const start = Math.floor(seconds / windowSeconds) * windowSeconds;
    const [row] = await databaseCall(
      this.dataSource.query<{ granted: string }[]>(
        'SELECT granted FROM key_rate_windows WHERE budget_id = $1 AND window_seconds = $2 AND window_start = $3',
        [budgetId, windowSeconds, start],
      ),
    );
    const known = this.windows.get(`${windowSeconds}:${budgetId}`);
    const held = known !== undefined && known.start === start ? known.unspent : 0;
    const handedOut = Math.min(limit, Number(row?.granted ?? 0));
    return {
      limit,
      windowSeconds,
      remaining: Math.min(limit, Math.max(0, limit - handedOut) + held),
      resetSeconds: Math.max(1, Math.ceil(start + windowSeconds - seconds)),
    };
  }

  /** Forgets windows that have ended (by `now`), so memory holds only current ones. */
  sweep(now: Date): void {
    const seconds = now.getTime() / 1000;
    for (const [slot, window] of this.windows) if (window.start + window.windowSeconds <= seconds) this.windows.delete(slot);
  }

  /** Deletes the rows of windows that ended before `now`; not on the request path. */
  async prune(now: Date): Promise<void> {
    await databaseCall(
      this.dataSource.query('DELETE FROM key_rate_windows WHERE window_start + window_seconds < $1', [Math.floor(now.getTime() / 1000)]),
    );
  }

  /**
   * The slot's current window. A request that began in an earlier window
   * than the one already open counts against the open one: were it to open
   * its own again, requests from either side of a boundary would replace each
   * other's window without end, each taking a share of it and never spending
   * one (a livelock of upserts that answered nothing under load).
   */
  private windowOf(slot: string, start: number, windowSeconds: number, limit: number): Window {
    const known = this.windows.get(slot);
    if (known && known.start >= start) {
      if (known.limit !== limit) Object.assign(known, { limit, exhausted: known.granted >= limit && known.exhausted });
      return known;
    }
    const fresh: Window = { start, windowSeconds, limit, unspent: 0, granted: 0, exhausted: false };
    this.windows.set(slot, fresh);
    return fresh;
  }

  private async takeShare(budgetId: string, window: Window): Promise<void> {
    const share = Math.max(1, Math.floor(window.limit / SHARE_DIVISOR));
    const [row] = await databaseCall(
      this.dataSource.query<{ granted: string }[]>(
        `INSERT INTO key_rate_windows AS w (budget_id, window_seconds, window_start, granted) VALUES ($1, $2, $3, $4)
       ON CONFLICT (budget_id, window_seconds, window_start) DO UPDATE SET granted = w.granted + EXCLUDED.granted
       RETURNING w.granted`,
        [budgetId, window.windowSeconds, window.start, share],
      ),
    );
    const total = Number(row.granted);
    const grant = Math.min(share, Math.max(0, window.limit - (total - share)));
    window.unspent += grant;
    window.granted = Math.min(window.limit, total);
    if (grant < share) window.exhausted = true;
  }
}
