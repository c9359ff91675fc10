import { ResourceSubscriptionStore, SubscribeOutcome } from '../../../application/ports/resource-subscription-store.port';

/** What PostgresResourceSubscriptions gives: the records, the NOTIFY that asks the holder, and whether anyone holds the stream. */
export interface SubscriptionRecords extends ResourceSubscriptionStore {
  streamHeld(clientSessionId: string): Promise<boolean>;
}

/** This replica's upstream streams (UpstreamNotificationStreams): null when it does not hold the session's stream. */
export interface LocalUpstreamStreams {
  listening(sessionId: string, serverId: string, ms: number): Promise<boolean | null>;
}

interface Waiter {
  heard: Promise<void>;
  resolve(): void;
  count: number;
}

/**
 * The subscription records, with following() waiting until the upstream's
 * stream is open where the client's stream is held: here, asked in process;
 * on another replica, asked by NOTIFY and answered by NOTIFY (heard());
 * nowhere, not waited for. Each wait ends after `waitMs` at the latest, and
 * the subscribe goes upstream then whatever was heard: a holder that is gone,
 * or of an older release that does not answer, costs that much and no more.
 */
export class ListeningSubscriptions implements ResourceSubscriptionStore {
  /** By `<session id> <server id>`; callers waiting for the same answer share one entry. */
  private readonly waiting = new Map<string, Waiter>();

  constructor(
    private readonly records: SubscriptionRecords,
    private readonly local: LocalUpstreamStreams,
    private readonly waitMs: number,
  ) {}

  add(clientSessionId: string, serverId: string, uri: string, max: number): Promise<SubscribeOutcome> {
    return this.records.add(clientSessionId, serverId, uri, max);
  }

  remove(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    return this.records.remove(clientSessionId, serverId, uri);
  }

  has(clientSessionId: string, serverId: string, uri: string): Promise<boolean> {
    return this.records.has(clientSessionId, serverId, uri);
  }

  async following(clientSessionId: string, serverId: string): Promise<void> {
    if ((await this.local.listening(clientSessionId, serverId, this.waitMs)) !== null) return;
    if (!(await this.records.streamHeld(clientSessionId))) return;
    const key = `${clientSessionId} ${serverId}`;
    const waiter = this.waiter(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.records.following(clientSessionId, serverId);
      await Promise.race([waiter.heard, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.waitMs)))]);
    } finally {
      clearTimeout(timer);
      if (--waiter.count === 0 && this.waiting.get(key) === waiter) this.waiting.delete(key);
    }
  }

  /** A LISTENING_CHANNEL payload: the holder listens to that upstream of that session. */
  heard(payload: string): void {
    const waiter = this.waiting.get(payload);
    if (waiter === undefined) return;
    this.waiting.delete(payload);
    waiter.resolve();
  }

  private waiter(key: string): Waiter {
    let waiter = this.waiting.get(key);
    if (waiter === undefined) {
      let resolve!: () => void;
      const heard = new Promise<void>((r) => (resolve = r));
      waiter = { heard, resolve, count: 0 };
      this.waiting.set(key, waiter);
    }
    waiter.count++;
    return waiter;
  }
}
