import { RpcMessage } from '../../../../src/application/ports/session-bus.port';
import { PendingRequests } from '../../../../src/adapters/mcp/relay/pending-requests';
import { RelayLimits, ToolCallRelay } from '../../../../src/adapters/mcp/relay/tool-call-relay';
import { relayedCapabilities } from '../../../../src/adapters/mcp/upstream/relaying-client';
import { InMemorySessionBusHub } from '../../../fakes/in-memory-session-bus';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const LIMITS: RelayLimits = { maxPendingPerSession: 2, maxMessagesPerCall: 5, maxBytesPerCall: 10_000, answerTimeoutMs: 1000 };

function makeSut(
  options: {
    limits?: Partial<RelayLimits>;
    progressToken?: string | number;
    deadline?: number;
    send?: (m: RpcMessage) => Promise<void>;
  } = {},
) {
  const hub = new InMemorySessionBusHub();
  const here = hub.replica();
  // The client's answers reach the other replica, as a round-robin proxy sends them.
  const other = hub.replica();
  const sent: RpcMessage[] = [];
  let ids = 0;
  const pending = new PendingRequests();
  const relay = new ToolCallRelay(
    { bus: here, pending, limits: { ...LIMITS, ...options.limits }, newRequestId: () => `keygate-${++ids}`, now: () => 1_000 },
    {
      sessionId: 's1',
      callRequestId: 7,
      progressToken: options.progressToken,
      deadline: options.deadline ?? 1_000_000,
      send: options.send ?? (async (message) => void sent.push(message)),
    },
  );
  /** Answers the next request written on the stream, through the other replica. */
  const answer = async (body: Record<string, unknown>) => {
    while (!sent.some((m) => 'id' in m && 'method' in m)) await new Promise((resolve) => setImmediate(resolve));
    const request = sent.splice(
      sent.findIndex((m) => 'id' in m && 'method' in m),
      1,
    )[0];
    await other.deliver('s1', { jsonrpc: '2.0', id: request.id, ...body });
    return request;
  };
  return { relay, sent, answer, other, pending };
}

describe('ToolCallRelay', () => {
  it("reports progress under the client's own token, and nothing when the client sent none", async () => {
    const { relay, sent } = makeSut({ progressToken: 'client-token' });
    expect(relay.wantsProgress).toBe(true);
    await relay.progress({ progress: 1, total: 2 });
    expect(sent).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1, total: 2, progressToken: 'client-token' } },
    ]);
    const without = makeSut();
    expect(without.relay.wantsProgress).toBe(false);
    await without.relay.progress({ progress: 1 });
    expect(without.sent).toEqual([]);
  });

  it('writes a logging message on the stream as it came', async () => {
    const { relay, sent } = makeSut();
    await relay.notify('notifications/message', { level: 'info', data: 'x' });
    expect(sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }]);
  });

  it('sends a request with its own id and returns the answer the client POSTed to another replica', async () => {
    const { relay, answer } = makeSut();
    const pending = relay.request('sampling/createMessage', { maxTokens: 1 });
    const request = await answer({ result: { content: { type: 'text', text: '4' } } });
    expect(request).toMatchObject({ id: 'keygate-1', method: 'sampling/createMessage', params: { maxTokens: 1 } });
    expect(await pending).toEqual({ result: { content: { type: 'text', text: '4' } } });
  });

  it('relays an error answer as an error, its message bounded', async () => {
    const { relay, answer } = makeSut();
    const pending = relay.request('elicitation/create', {});
    await answer({ error: { code: -1, message: 'no'.repeat(1000) } });
    const got = await pending;
    expect(got).toMatchObject({ error: { code: -1 } });
    expect((got as { error: { message: string } }).error.message.length).toBeLessThanOrEqual(300);
  });

  it("answers the upstream with an error when the client does not answer in time, never waiting past the call's deadline", async () => {
    const late = makeSut({ limits: { answerTimeoutMs: 20 } });
    expect(await late.relay.request('roots/list', {})).toMatchObject({ error: { code: -32001 } });
    const over = makeSut({ deadline: 1_000 });
    expect(await over.relay.request('roots/list', {})).toMatchObject({ error: { code: -32001 } });
    expect(over.sent).toEqual([]);
  });

  it('bounds requests in flight per session, and frees the place once answered', async () => {
    const { relay, answer, pending } = makeSut({ limits: { maxPendingPerSession: 1 } });
    const first = relay.request('roots/list', {});
    expect(await relay.request('roots/list', {})).toMatchObject({ error: { message: expect.stringContaining('1 requests') } });
    await answer({ result: { roots: [] } });
    await first;
    expect(pending.inFlight('s1')).toBe(0);
  });

  it('drops messages past the per-call bound, and refuses requests past it', async () => {
    const { relay, sent } = makeSut({ limits: { maxMessagesPerCall: 2 } });
    for (let i = 0; i < 4; i++) await relay.notify('notifications/message', { i });
    expect(sent).toHaveLength(2);
    expect(await relay.request('roots/list', {})).toMatchObject({ error: { message: expect.stringContaining('no more messages') } });
    const bytes = makeSut({ limits: { maxBytesPerCall: 100 } });
    await bytes.relay.notify('notifications/message', { data: 'x'.repeat(200) });
    expect(bytes.sent).toEqual([]);
  });

  it("aborts on the client's notifications/cancelled for this call only, and stops listening once closed", async () => {
    const { relay, other } = makeSut();
    await other.deliver('s1', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(relay.signal.aborted).toBe(false);
    await other.deliver('s1', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(relay.signal.aborted).toBe(true);

    const closed = makeSut();
    closed.relay.close();
    await closed.other.deliver('s1', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed.relay.signal.aborted).toBe(false);
  });

  it("never throws when the client's stream is gone: a request is refused", async () => {
    const { relay } = makeSut({
      send: async () => {
        throw new Error('No connection established');
      },
    });
    await expect(relay.notify('notifications/message', {})).resolves.toBeUndefined();
    expect(await relay.request('roots/list', {})).toMatchObject({ error: { code: -32603 } });
  });
});

describe('relayedCapabilities', () => {
  it('declares to the upstream only sampling, elicitation and roots, and only those the client declared', () => {
    expect(relayedCapabilities({ sampling: {}, roots: { listChanged: true }, experimental: { x: {} }, tasks: {} })).toEqual({
      sampling: {},
      roots: { listChanged: true },
    });
    expect(relayedCapabilities({ elicitation: { form: {} }, sampling: 'yes', roots: [] })).toEqual({ elicitation: { form: {} } });
    expect(relayedCapabilities({})).toEqual({});
  });

  // The SDK client adds an abort listener per request to the call's signal and never removes it; the HTTP exchange's signal lives on.
  it('once closed, lets go of what listeners left on its signal', async () => {
    const exchange = new AbortController();
    const hub = new InMemorySessionBusHub();
    let ref!: WeakRef<object>;
    (() => {
      const relay = new ToolCallRelay(
        { bus: hub.replica(), pending: new PendingRequests(), limits: LIMITS, newRequestId: () => 'keygate-1', now: () => 1_000 },
        {
          sessionId: 's1',
          callRequestId: 7,
          progressToken: undefined,
          deadline: 1_000_000,
          send: async () => undefined,
          signal: exchange.signal,
        },
      );
      const contact = { big: new Array(1000).fill('x') };
      ref = new WeakRef(contact);
      relay.signal.addEventListener('abort', () => contact.big.length);
      relay.close();
    })();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(ref.deref()).toBeUndefined();
    expect(exchange.signal.aborted).toBe(false);
  });
});
