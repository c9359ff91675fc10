import { RelayAnswer, UpstreamRelay } from '../../../../../src/application/ports/upstream-mcp.port';
import { ParkedCallGone, ParkedCalls } from '../../../../../src/adapters/mcp/modern/parked-calls';
import { InMemorySessionBusHub } from '../../../../fakes/in-memory-session-bus';

const LIMITS = { callTimeoutMs: 60_000, maxPerReplica: 10, maxPerKey: 2, takeTimeoutMs: 50 };
const errorOf = () => ({ code: -32603, message: 'Internal error' });

/** A stand-in for an upstream tool: asks the relay what `asks` says, in turn, then returns every answer. */
function upstreamTool(asks: string[][]) {
  const answers: RelayAnswer[][] = [];
  let relay: UpstreamRelay | undefined;
  const run = async (given: UpstreamRelay) => {
    relay = given;
    for (const round of asks) answers.push(await Promise.all(round.map((method) => given.request(method, { round: answers.length }))));
    return { content: [{ type: 'text', text: JSON.stringify(answers) }] };
  };
  return { run, answers, relay: () => relay };
}

function makeSut(limits = LIMITS) {
  const hub = new InMemorySessionBusHub();
  let ids = 0;
  const busA = hub.replica();
  const busB = hub.replica();
  const a = new ParkedCalls(busA, limits, Date.now, () => `call-${(ids += 1)}`);
  const b = new ParkedCalls(busB, limits, Date.now, () => `other-${(ids += 1)}`);
  return { a, b, busB };
}

const start = (
  calls: ParkedCalls,
  run: (relay: UpstreamRelay) => Promise<Record<string, unknown>>,
  owner = 'key-1',
  signal = new AbortController().signal,
) => calls.start({ owner, run, errorOf, signal });

describe('ParkedCalls', () => {
  it('completes a call that asks nothing without parking it', async () => {
    const { a } = makeSut();
    const { outcome } = await start(a, async () => ({ content: [] }));
    expect(outcome).toEqual({ kind: 'complete', result: { content: [] } });
    expect(a.size).toBe(0);
  });

  it('parks a call at its first request, takes the answers on another replica over the bus, and hands back the next round and the end', async () => {
    const { a, b } = makeSut();
    const tool = upstreamTool([['elicitation/create'], ['sampling/createMessage']]);
    const { call, outcome } = await start(a, tool.run);
    expect(outcome).toEqual({
      kind: 'input',
      round: 1,
      inputRequests: { 'keygate-1': { method: 'elicitation/create', params: { round: 0 } } },
    });
    expect(a.size).toBe(1);
    const second = await b.resume(call.id, 1, { 'keygate-1': { action: 'accept' } }, call.deadline);
    expect(second).toEqual({
      kind: 'input',
      round: 2,
      inputRequests: { 'keygate-2': { method: 'sampling/createMessage', params: { round: 1 } } },
    });
    const end = await b.resume(call.id, 2, { 'keygate-2': { model: 'm' } }, call.deadline);
    expect(end).toMatchObject({ kind: 'complete' });
    expect(tool.answers).toEqual([[{ result: { action: 'accept' } }], [{ result: { model: 'm' } }]]);
    expect(a.size).toBe(0);
  });

  it('asks again, in a new round, for what a retry left unanswered', async () => {
    const { a } = makeSut();
    const tool = upstreamTool([['elicitation/create', 'roots/list']]);
    const { call, outcome } = await start(a, tool.run);
    expect(outcome).toMatchObject({
      kind: 'input',
      round: 1,
      inputRequests: { 'keygate-1': { method: 'elicitation/create' }, 'keygate-2': { method: 'roots/list' } },
    });
    const next = await a.resume(call.id, 1, { 'keygate-1': { action: 'decline' }, unknown: { x: 1 } }, call.deadline);
    expect(next).toEqual({ kind: 'input', round: 2, inputRequests: { 'keygate-2': { method: 'roots/list', params: { round: 0 } } } });
    expect(await a.resume(call.id, 2, { 'keygate-2': { roots: [] } }, call.deadline)).toMatchObject({ kind: 'complete' });
    expect(tool.answers).toEqual([[{ result: { action: 'decline' } }, { result: { roots: [] } }]]);
  });

  it('refuses a replayed round (stale) and a call that is over (finished), here and from another replica', async () => {
    const { a, b, busB } = makeSut();
    const tool = upstreamTool([['elicitation/create'], ['elicitation/create']]);
    const { call } = await start(a, tool.run);
    await b.resume(call.id, 1, { 'keygate-1': {} }, call.deadline);
    await expect(a.resume(call.id, 1, { 'keygate-1': {} }, call.deadline)).rejects.toEqual(new ParkedCallGone('stale'));
    await expect(b.resume(call.id, 1, { 'keygate-1': {} }, call.deadline)).rejects.toMatchObject({ reason: 'stale' });
    // The refused retry waits no longer for an outcome (a replayed state must not hold a waiter until the call's deadline).
    expect(busB.waiting).toBe(0);
    await a.resume(call.id, 2, { 'keygate-2': {} }, call.deadline);
    await expect(a.resume(call.id, 2, { 'keygate-2': {} }, call.deadline)).rejects.toMatchObject({
      reason: expect.stringMatching(/finished|unknown/),
    });
  });

  it("bounds parked calls per key and per replica: past a bound the upstream's request is refused and the call goes on without parking", async () => {
    const { a } = makeSut({ ...LIMITS, maxPerKey: 1, maxPerReplica: 2 });
    const held = await start(a, upstreamTool([['elicitation/create']]).run, 'key-1');
    expect(held.outcome.kind).toBe('input');
    const refusedTool = upstreamTool([['elicitation/create']]);
    const refused = await start(a, refusedTool.run, 'key-1');
    expect(refused.outcome.kind).toBe('complete');
    expect(refusedTool.answers[0][0]).toMatchObject({ error: { message: expect.stringMatching(/too many calls/) } });
    expect((await start(a, upstreamTool([['roots/list']]).run, 'key-2')).outcome.kind).toBe('input');
    // The replica is full (2): a third key is refused too.
    expect((await start(a, upstreamTool([['roots/list']]).run, 'key-3')).outcome.kind).toBe('complete');
    expect(a.size).toBe(2);
  });

  it('cancels a parked call nobody answers by its deadline: the relay aborts and the waiting request gets no answer to race the cancellation', async () => {
    jest.useFakeTimers();
    try {
      const { a } = makeSut({ ...LIMITS, callTimeoutMs: 8000 });
      let answer: Promise<RelayAnswer> | undefined;
      const { call } = await start(a, (relay) => {
        answer = relay.request('elicitation/create', {});
        return new Promise(() => undefined);
      });
      expect(call.signal.aborted).toBe(false);
      // Cancelled ahead of the contact's own bound, so that the upstream is still told.
      jest.advanceTimersByTime(7000);
      expect(call.signal.aborted).toBe(true);
      // The upstream hears the cancellation alone: a refusal sent beside it could reach it first and end its tool as failed.
      let settled = false;
      void answer!.then(() => (settled = true));
      await jest.advanceTimersByTimeAsync(60_000);
      expect(settled).toBe(false);
      expect(a.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('cancels a call whose client leaves before it parks', async () => {
    const { a } = makeSut();
    const left = new AbortController();
    let relay: UpstreamRelay | undefined;
    const started = start(
      a,
      (given) => {
        relay = given;
        return new Promise((resolve) => given.signal.addEventListener('abort', () => resolve({ content: [], isError: true })));
      },
      'key-1',
      left.signal,
    );
    left.abort();
    expect((await started).outcome).toMatchObject({ kind: 'complete', result: { isError: true } });
    expect(relay?.signal.aborted).toBe(true);
  });
});
