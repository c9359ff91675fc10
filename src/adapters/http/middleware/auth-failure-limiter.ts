/** Bounds the memory the limiter can take whatever the number of addresses. */
export const DEFAULT_MAX_TRACKED_CLIENTS = 10_000;

export interface AuthFailureLimitOptions {
  /** Failed validations a client may have in one window; the next request is refused. */
  limit: number;
  windowSeconds: number;
  maxTrackedClients?: number;
}

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Counts failed key validations per client address in fixed windows that
 * start at a client's first failure. Entries live in a Map kept in
 * least-recently-failed order: when it is full, the oldest entry is dropped,
 * so a flood of distinct addresses costs bounded memory. Dropping lets an old
 * address start over; an attacker who controls that many addresses is not
 * held back by a per-address limit anyway.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly maxTrackedClients: number;

  constructor(private readonly options: AuthFailureLimitOptions) {
    this.windowMs = options.windowSeconds * 1000;
    this.maxTrackedClients = options.maxTrackedClients ?? DEFAULT_MAX_TRACKED_CLIENTS;
  }

  /** Seconds until the client may try again, or null when it is not limited. */
  retryAfterSeconds(client: string, nowMs: number): number | null {
    const window = this.current(client, nowMs);
    if (window === undefined || window.failures < this.options.limit) return null;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - nowMs) / 1000));
  }

  recordFailure(client: string, nowMs: number): void {
    const window = this.current(client, nowMs) ?? { startedAt: nowMs, failures: 0 };
    window.failures += 1;
    this.windows.delete(client);
    this.windows.set(client, window);
    if (this.windows.size > this.maxTrackedClients) {
      this.windows.delete(this.windows.keys().next().value as string);
    }
  }

  get trackedClients(): number {
    return this.windows.size;
  }

  private current(client: string, nowMs: number): Window | undefined {
    const window = this.windows.get(client);
    if (window !== undefined && nowMs >= window.startedAt + this.windowMs) {
      this.windows.delete(client);
      return undefined;
    }
    return window;
  }
}
