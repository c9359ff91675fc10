import { RelayAnswer, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { Outage } from '../mcp-error-map';

/** The input requests of one round, keyed as the client must key its inputResponses. */
export type InputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

/** A JSON-RPC error as it travels between replicas. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
  /** An outage the holder met: the retry's replica answers it as its own (503 while it still can). */
  outage?: Outage;
}

/** Where a parked call stands when its client hears from it: done, failed, or asking for input (answered under `round`). */
export type ParkedOutcome =
  | { kind: 'complete'; result: Record<string, unknown> }
  | { kind: 'failed'; error: WireError }
  | { kind: 'input'; round: number; inputRequests: InputRequests };

/** Why a client's answers were not taken. */
export type TakeRefusal = 'finished' | 'stale';

interface Asked {
  method: string;
  params: Record<string, unknown>;
  settle(answer: RelayAnswer): void;
}

export interface ParkedCallHooks {
  /** Called when the upstream first asks: false refuses the request (a parking bound is reached). */
  park(call: ParkedCall): boolean;
  /** The first round's relay (progress on the first request's stream), until the call parks. */
  firstRound?: UpstreamRelay;
}

const REFUSED = -32603;

/**
 * One 2026-07-28 tools/call of a 2025 upstream, held on this replica while
 * its client answers what the upstream asks (elicitation, sampling, roots).
 * It is the call's UpstreamRelay: each upstream request waits here under a
 * key of keygate's until the client's retry brings its answer. Its client
 * hears it round by round through outcome(): the result, the failure, or the
 * requests still unanswered.
 */
export class ParkedCall implements UpstreamRelay {
  readonly signal: AbortSignal;
  readonly wantsProgress: boolean;
  private readonly stop = new AbortController();
  private readonly asked = new Map<string, Asked>();
  private readonly listeners = new Set<() => void>();
  private finished: ParkedOutcome | null = null;
  private parked = false;
  private keys = 0;
  /** The round whose answers are awaited; 0 until the client has been asked. */
  private round = 0;
  /** Whether that round's answers were taken already (a replayed retry is stale). */
  private taken = true;

  constructor(
    readonly id: string,
    readonly owner: string,
    readonly deadline: number,
    private readonly hooks: ParkedCallHooks,
  ) {
    this.signal = this.stop.signal;
    this.wantsProgress = hooks.firstRound?.wantsProgress ?? false;
  }

  /** Follows the call's work: its end is the last outcome. */
  follow(work: Promise<Record<string, unknown>>, errorOf: (error: unknown) => WireError): void {
    work.then(
      (result) => this.finish({ kind: 'complete', result }),
      (error: unknown) => this.finish({ kind: 'failed', error: errorOf(error) }),
    );
  }

  get isParked(): boolean {
    return this.parked;
  }

  get isFinished(): boolean {
    return this.finished !== null;
  }

  /**
   * Ends a call that is still running: the upstream contact is aborted (its
   * request cancelled), and what the upstream asked is left unanswered. An
   * answer would race the cancellation (two requests to the upstream), and an
   * upstream that got the refusal first would end its tool as failed rather
   * than cancelled; cancelled, it drops its own requests.
   */
  cancel(why: string): void {
    this.stop.abort(new Error(why));
    this.asked.clear();
  }

  /** After the call's end: what the upstream still asked is refused. */
  private refuseAsked(why: string): void {
    for (const [key, asked] of this.asked) {
      this.asked.delete(key);
      asked.settle({ error: { code: REFUSED, message: `keygate could not relay the request: ${why}` } });
    }
  }

  /** The next thing the client hears: the end, or the requests not answered yet (a new round). */
  async outcome(): Promise<ParkedOutcome> {
    while (this.finished === null && this.asked.size === 0) await new Promise<void>((resolve) => this.listen(resolve));
    if (this.finished !== null) return this.finished;
    this.round += 1;
    this.taken = false;
    const inputRequests: InputRequests = {};
    for (const [key, { method, params }] of this.asked) inputRequests[key] = { method, params };
    return { kind: 'input', round: this.round, inputRequests };
  }

  /** Hands the client's answers of `round` to the upstream's waiting requests; a key the call did not ask for is ignored. */
  take(round: number, responses: Record<string, unknown>): TakeRefusal | null {
    if (this.finished !== null || this.signal.aborted) return 'finished';
    if (round !== this.round || this.taken) return 'stale';
    this.taken = true;
    for (const [key, response] of Object.entries(responses)) {
      const asked = this.asked.get(key);
      if (asked === undefined || response === null || typeof response !== 'object' || Array.isArray(response)) continue;
      this.asked.delete(key);
      asked.settle({ result: response as Record<string, unknown> });
    }
    return null;
  }

  async progress(params: { progress: number; total?: number; message?: string }): Promise<void> {
    // Only the first request has a stream to carry it; a retry is a plain answer.
    if (!this.parked) await this.hooks.firstRound?.progress(params);
  }

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    // As progress: the first request's stream carries them (modernRelay relays log messages only to a request that sent a logLevel).
    if (!this.parked) await this.hooks.firstRound?.notify(method, params);
  }

  request(method: string, params: Record<string, unknown>): Promise<RelayAnswer> {
    if (this.signal.aborted)
      return Promise.resolve({ error: { code: REFUSED, message: 'keygate could not relay the request: the call was cancelled' } });
    if (!this.parked && !(this.parked = this.hooks.park(this))) {
      return Promise.resolve({
        error: { code: REFUSED, message: "keygate could not relay the request: too many calls wait for their clients' input" },
      });
    }
    this.keys += 1;
    const key = `keygate-${this.keys}`;
    return new Promise((settle) => {
      this.asked.set(key, { method, params, settle });
      this.emit();
    });
  }

  private finish(outcome: ParkedOutcome): void {
    this.finished ??= outcome;
    this.refuseAsked('the call ended');
    this.stop.abort(new Error('the call ended'));
    this.emit();
  }

  private listen(listener: () => void): void {
    this.listeners.add(listener);
  }

  private emit(): void {
    const listeners = [...this.listeners];
    this.listeners.clear();
    listeners.forEach((listener) => listener());
  }
}
