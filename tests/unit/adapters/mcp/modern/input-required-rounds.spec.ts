import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../../src/adapters/crypto/aes-gcm-secret-box';
import { InputRequiredRounds, MAX_INPUT_REQUESTS, MAX_INPUT_ROUNDS } from '../../../../../src/adapters/mcp/modern/input-required-rounds';
import { OpenedRequestState } from '../../../../../src/adapters/mcp/modern/opened-request-state';
import { SealedRequestState } from '../../../../../src/adapters/mcp/modern/sealed-request-state';

const binding = { keyId: 'key-1', endpoint: '/mcp', method: 'tools/call', name: 'files__ask' };
const envelope = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/logLevel': 'info' };
const record = { id: 'rec-1', version: '2026-11-26T00:00:00.000Z' };
const asked = {
  resultType: 'input_required',
  inputRequests: { input: { method: 'elicitation/create', params: {} } },
  requestState: 'upstream-own',
};

function makeSut() {
  const states = new SealedRequestState(new AesGcmSecretBox(randomBytes(32)), { now: () => new Date(1_000) });
  const rounds = new InputRequiredRounds(states);
  const begin = (requestState?: unknown, at = binding) =>
    rounds.begin({
      binding: at,
      meta: { traceparent: 't', other: 'x' },
      envelope,
      inputResponses: { input: { action: 'accept' } },
      requestState,
    });
  /** One round answered input_required by `record`: the state the client gets. */
  const answered = (requestState?: unknown, result: Record<string, unknown> = asked) => {
    const round = begin(requestState);
    round.forwarded.input!.answeredBy = record;
    return round.answer(result).requestState as string;
  };
  return { states, rounds, begin, answered };
}

function errorOf(act: () => unknown): { code: number; message: string; data?: unknown } {
  try {
    act();
  } catch (error) {
    return error as { code: number; message: string; data?: unknown };
  }
  throw new Error('no error');
}

describe('InputRequiredRounds', () => {
  it("passes on the client's capabilities, logLevel and trace context, and no retry on a first call", () => {
    const { rounds } = makeSut();
    expect(
      rounds.begin({ binding, meta: { traceparent: 't', other: 'x' }, envelope, inputResponses: undefined, requestState: undefined })
        .forwarded,
    ).toEqual({ trace: { traceparent: 't' }, input: { clientCapabilities: { elicitation: {} }, logLevel: 'info' } });
  });

  it("passes on answers sent without keygate's state as they came, pinned to no record (SEP-2322: a stateless upstream needs no state)", () => {
    const { begin } = makeSut();
    expect(begin().forwarded.input!.resume).toEqual({ inputResponses: { input: { action: 'accept' } } });
  });

  it("seals the upstream's state with the record and round, and gives it back with the client's answers on the retry", () => {
    const { begin, answered } = makeSut();
    const state = answered();
    expect(state).not.toContain('upstream-own');
    expect(begin(state).forwarded.input!.resume).toEqual({
      inputResponses: { input: { action: 'accept' } },
      requestState: 'upstream-own',
      server: { id: record.id, version: record.version },
    });
  });

  it('takes a state opened for its request already without opening it again', () => {
    const { states, begin, answered } = makeSut();
    const opened = OpenedRequestState.open(states, answered(), binding);
    const open = jest.spyOn(states, 'open');
    expect(begin(opened).forwarded.input!.resume).toMatchObject({ requestState: 'upstream-own', server: { id: record.id } });
    expect(open).not.toHaveBeenCalled();
  });

  it('answers a complete result as it came', () => {
    const { begin } = makeSut();
    const result = { content: [] };
    expect(begin().answer(result)).toBe(result);
  });

  it("refuses a state that is tampered with, not a string, or minted for another request with the SDK's -32602", () => {
    const { begin, answered } = makeSut();
    const state = answered();
    const refused = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };
    expect(errorOf(() => begin(`${state}x`))).toMatchObject(refused);
    expect(errorOf(() => begin(42))).toMatchObject(refused);
    expect(errorOf(() => begin(state, { ...binding, keyId: 'key-2' }))).toMatchObject(refused);
    expect(errorOf(() => begin(state, { ...binding, name: 'files__think' }))).toMatchObject(refused);
  });

  it('refuses a state of another kind sealed under the same key', () => {
    const { states, begin } = makeSut();
    expect(errorOf(() => begin(states.mint({ k: 'parked', c: 'call-1' }, binding))).code).toBe(-32602);
  });

  it(`refuses the round after the ${MAX_INPUT_ROUNDS}th`, () => {
    const { answered } = makeSut();
    let state: string | undefined;
    for (let round = 1; round <= MAX_INPUT_ROUNDS; round++) state = answered(state);
    expect(errorOf(() => answered(state))).toMatchObject({
      code: -32603,
      message: `The MCP server still asked for input after ${MAX_INPUT_ROUNDS} rounds`,
    });
  });

  it(`refuses more than ${MAX_INPUT_REQUESTS} input requests in one answer`, () => {
    const { answered } = makeSut();
    const many = Object.fromEntries(
      Array.from({ length: MAX_INPUT_REQUESTS + 1 }, (_, i) => [`k${i}`, { method: 'elicitation/create', params: {} }]),
    );
    expect(errorOf(() => answered(undefined, { resultType: 'input_required', inputRequests: many })).code).toBe(-32603);
  });

  it("turns what the session noted into the client's error: the upstream's -32021 with its data, a stale record as -32602", () => {
    const { begin, answered } = makeSut();
    const refusedRound = begin();
    refusedRound.forwarded.input!.refused = {
      code: -32021,
      message: 'Missing capability',
      data: { requiredCapabilities: { sampling: {} } },
    };
    expect(refusedRound.failure(new Error('x'))).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    expect(errorOf(() => refusedRound.answer({ content: [], isError: true })).code).toBe(-32021);
    const stale = begin(answered());
    stale.forwarded.input!.stale = true;
    expect(stale.failure(new Error('x'))).toMatchObject({ code: -32602 });
    const plain = new Error('plain');
    expect(begin().failure(plain)).toBe(plain);
  });
});
