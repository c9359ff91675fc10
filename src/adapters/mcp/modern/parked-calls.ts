import { randomUUID } from 'node:crypto';
import { RpcMessage, SessionBus } from '../../../application/ports/session-bus.port';
import { UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { ParkedCall, ParkedOutcome, TakeRefusal, WireError } from './parked-call';

export interface ParkedCallLimits {
  /** MCP_RELAY_CALL_TIMEOUT_MS: a parked call not finished by then is cancelled. */
  callTimeoutMs: number;
  /** MCP_MAX_PARKED_CALLS_PER_REPLICA. */
  maxPerReplica: number;
  /** MCP_MAX_PARKED_CALLS_PER_KEY (on one replica). */
  maxPerKey: number;
  /** How long a retry on another replica waits for the holder to take its answers (TAKE_TIMEOUT_MS). */
  takeTimeoutMs?: number;
}

/** A retry that cannot go on: its call is unknown here and on every replica, finished, or the round was answered already. */
export class ParkedCallGone extends Error {
  constructor(readonly reason: TakeRefusal | 'unknown' | 'timeout') {
    super(
      reason === 'stale'
        ? 'This input round was answered already; retry with the latest requestState'
        : reason === 'timeout'
          ? 'The call did not answer in time'
          : 'The call this requestState belongs to is over (finished, cancelled or timed out)',
    );
  }
}

/** The method of the bus message carrying a retry's answers to the replica holding the call. */
const INPUT = 'notifications/keygate/parked-input';
/** How long a retry waits for the holding replica to take its answers before it calls the call gone. */
export const TAKE_TIMEOUT_MS = 5000;
/**
 * A parked call is cancelled this much before its contact's own bound
 * (MCP_RELAY_CALL_TIMEOUT_MS, a quarter of it when shorter), so that the
 * upstream is still sent notifications/cancelled: past the bound the
 * contact's connection is aborted, that message with it.
 */
export const CANCEL_AHEAD_MS = 1000;

interface StartInput {
  /** Whose call (the key): parked calls are bounded per key. */
  owner: string;
  /** Runs the call with `relay` as its upstream relay. */
  run(relay: UpstreamRelay): Promise<Record<string, unknown>>;
  errorOf: (error: unknown) => WireError;
  /** The first request's relay (progress on its stream), until the call parks. */
  firstRound?: UpstreamRelay;
  /** The first request's end: a call its client left before it parked is cancelled. */
  signal: AbortSignal;
}

/**
 * The 2026 calls of 2025 upstreams this replica holds open while their
 * clients answer input requests, bounded per replica and per key, each
 * cancelled at its deadline. A client's retry may reach any replica: the one
 * holding the call takes the answers directly; any other hands them over the
 * session bus, addressed to the call's id (a random UUID, no session's), and
 * waits there for the next outcome, which the holder sends back the same way.
 */
export class ParkedCalls {
  private readonly calls = new Map<string, ParkedCall>();
  private readonly perKey = new Map<string, number>();

  constructor(
    private readonly bus: SessionBus,
    private readonly limits: ParkedCallLimits,
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = randomUUID,
  ) {}

  /** Starts a call; its first outcome. */
  async start(input: StartInput): Promise<{ call: ParkedCall; outcome: ParkedOutcome }> {
    const { callTimeoutMs } = this.limits;
    const deadline = this.now() + callTimeoutMs - Math.min(CANCEL_AHEAD_MS, Math.floor(callTimeoutMs / 4));
    const call = new ParkedCall(this.newId(), input.owner, deadline, { park: (c) => this.park(c), firstRound: input.firstRound });
    call.follow(input.run(call), input.errorOf);
    const left = () => call.cancel('the client left before answering');
    input.signal.addEventListener('abort', left, { once: true });
    try {
      return { call, outcome: await call.outcome() };
    } finally {
      input.signal.removeEventListener('abort', left);
    }
  }

  /** A retry's answers for `round` of call `id`: the call's next outcome, from whichever replica holds it. */
  async resume(id: string, round: number, responses: Record<string, unknown>, deadline: number): Promise<ParkedOutcome> {
    const local = this.calls.get(id);
    if (local !== undefined) {
      const refused = local.take(round, responses);
      if (refused !== null) throw new ParkedCallGone(refused);
      return local.outcome();
    }
    return this.resumeElsewhere(id, round, responses, deadline);
  }

  get size(): number {
    return this.calls.size;
  }

  private async resumeElsewhere(id: string, round: number, responses: Record<string, unknown>, deadline: number): Promise<ParkedOutcome> {
    const reply = randomUUID();
    // Both awaited before the answers go out, so a quick holder is not missed.
    const wait = this.limits.takeTimeoutMs ?? TAKE_TIMEOUT_MS;
    // A retry refused (or gone) stops waiting for the next outcome at once: a stale replay must not hold a waiter until the deadline.
    const done = new AbortController();
    try {
      const taken = this.bus.awaitResponse(id, `take-${reply}`, wait, done.signal);
      const next = this.bus.awaitResponse(id, `next-${reply}`, Math.max(0, deadline - this.now()) + wait, done.signal);
      await this.bus.deliver(id, { jsonrpc: '2.0', method: INPUT, params: { reply, round, inputResponses: responses } });
      const took = await taken;
      if (took === null) throw new ParkedCallGone('unknown');
      const refused = (took.error as { message?: unknown } | undefined)?.message;
      if (refused === 'finished' || refused === 'stale') throw new ParkedCallGone(refused);
      const outcome = (await next)?.result as { outcome?: ParkedOutcome } | undefined;
      if (outcome?.outcome === undefined) throw new ParkedCallGone('timeout');
      return outcome.outcome;
    } finally {
      done.abort();
    }
  }

  /** The upstream first asked: the call is held here (within the bounds) until it ends or its deadline. */
  private park(call: ParkedCall): boolean {
    const held = this.perKey.get(call.owner) ?? 0;
    if (this.calls.size >= this.limits.maxPerReplica || held >= this.limits.maxPerKey) return false;
    this.calls.set(call.id, call);
    this.perKey.set(call.owner, held + 1);
    const unsubscribe = this.bus.onNotification(call.id, (message) => void this.takeFromBus(call, message));
    const timer = setTimeout(
      () => call.cancel('the client did not answer in time (MCP_RELAY_CALL_TIMEOUT_MS)'),
      Math.max(0, call.deadline - this.now()),
    );
    timer.unref();
    call.signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        unsubscribe();
        this.calls.delete(call.id);
        const count = (this.perKey.get(call.owner) ?? 1) - 1;
        if (count <= 0) this.perKey.delete(call.owner);
        else this.perKey.set(call.owner, count);
      },
      { once: true },
    );
    return true;
  }

  /** Another replica's retry for a call held here: taken (or refused, said at once), then the next outcome sent back. */
  private async takeFromBus(call: ParkedCall, message: RpcMessage): Promise<void> {
    const params = message.params as { reply?: unknown; round?: unknown; inputResponses?: unknown } | undefined;
    if (message.method !== INPUT || typeof params?.reply !== 'string' || typeof params.round !== 'number') return;
    const responses =
      params.inputResponses !== null && typeof params.inputResponses === 'object' ? (params.inputResponses as Record<string, unknown>) : {};
    const refused = call.take(params.round, responses);
    await this.answer(
      call.id,
      refused === null
        ? { id: `take-${params.reply}`, result: {} }
        : { id: `take-${params.reply}`, error: { code: -32602, message: refused } },
    );
    if (refused !== null) return;
    await this.answer(call.id, { id: `next-${params.reply}`, result: { outcome: await call.outcome() } });
  }

  private async answer(id: string, message: Record<string, unknown>): Promise<void> {
    // A lost answer leaves the retrying replica to time out; nothing else can be done for it here.
    await this.bus.deliver(id, { jsonrpc: '2.0', ...message }).catch(() => undefined);
  }
}
