import { ForwardedRequest, InputPassthrough } from '../../../application/ports/upstream-mcp.port';
import { RPC } from '../json-rpc';
import { RpcError } from '../rpc-error';
import { RequestStateBinding, RequestStateRefused, SealedRequestState } from './sealed-request-state';
import { clientCapabilitiesOf, logLevelOf, traceOf } from './forwarded-meta';
import { invalidState, OpenedRequestState } from './opened-request-state';

/** Input-required answers one flow may pass on (the SDK's own default maxRounds); the next one is refused. */
export const MAX_INPUT_ROUNDS = 8;
/** Input requests one upstream answer may carry. */
export const MAX_INPUT_REQUESTS = 32;

/** The three methods 2026-07-28 lets answer input_required. */
export type InputMethod = 'tools/call' | 'resources/read' | 'prompts/get';

/** What keygate seals into the requestState it gives the client for an upstream's input_required answer. */
interface UpstreamRound {
  /** Marks keygate's own state for an upstream's round (other kinds of state may be sealed under the same key). */
  k: 'upstream';
  /** The upstream's record: its id and version (a retry goes to that version of it, or nowhere). */
  s: string;
  v: string;
  /** Rounds so far in this flow, this one included. */
  r: number;
  /** The upstream's own requestState, never shown to the client. */
  u?: string;
}

/** One 2026-07-28 request of the three, as the SDK's handler context shows it. */
export interface InputRoundRequest {
  /** Whose the state is, where, and for what: the key, the endpoint path, the method and its name or URI. */
  binding: RequestStateBinding;
  /** The request's `_meta` (the envelope lifted out): its trace context. */
  meta: unknown;
  /** The lifted envelope: the client's capabilities and logLevel. */
  envelope: unknown;
  /** The lifted retry fields; the state sealed, or opened already for this request. */
  inputResponses: unknown;
  requestState: unknown;
}

/**
 * Input-required results (MRTR) of a 2026-07-28 upstream passed through to a
 * 2026-07-28 client (increment 6 of docs/design/mcp-2026-07-28.md): the
 * upstream is told exactly what the client declared and asked with its
 * inputRequests as they came; its own requestState goes to the client only
 * sealed (SealedRequestState: encrypted, bound to key, endpoint, method and
 * name, dated) with the record that asked and a round count. A retry must
 * bring that state back: it is opened (refused: the SDK's frozen -32602),
 * and the client's answers go on with the upstream's own state, to the same
 * version of the same record, on a fresh stateless request. Each round is a
 * request of its own, gated, charged and audited as a first one is.
 */
export class InputRequiredRounds {
  constructor(private readonly states: SealedRequestState) {}

  begin(request: InputRoundRequest): InputRound {
    const input: InputPassthrough = {
      clientCapabilities: clientCapabilitiesOf(request.envelope),
      ...(logLevelOf(request.envelope) !== undefined && { logLevel: logLevelOf(request.envelope) }),
    };
    let round = 0;
    // inputResponses without keygate's state go on as they came, as arguments do: a stateless upstream needs nothing else (SEP-2322).
    if (request.requestState === undefined && isObject(request.inputResponses)) input.resume = { inputResponses: request.inputResponses };
    if (request.requestState !== undefined) {
      const opened = this.open(request.requestState, request.binding);
      round = opened.r;
      input.resume = {
        inputResponses: isObject(request.inputResponses) ? request.inputResponses : {},
        ...(opened.u !== undefined && { requestState: opened.u }),
        server: { id: opened.s, version: opened.v },
      };
    }
    return new InputRound(this.states, request.binding, round, { trace: traceOf(request.meta), input });
  }

  private open(state: unknown, binding: RequestStateBinding): UpstreamRound {
    const payload = OpenedRequestState.open(this.states, state, binding).payload as Partial<UpstreamRound> | null;
    const valid =
      payload !== null &&
      typeof payload === 'object' &&
      payload.k === 'upstream' &&
      typeof payload.s === 'string' &&
      typeof payload.v === 'string' &&
      typeof payload.r === 'number' &&
      (payload.u === undefined || typeof payload.u === 'string');
    if (!valid) throw invalidState();
    return payload as UpstreamRound;
  }
}

/** One request's round: what it passes on, and how its answer goes back to the client. */
export class InputRound {
  constructor(
    private readonly states: SealedRequestState,
    private readonly binding: RequestStateBinding,
    private readonly round: number,
    readonly forwarded: ForwardedRequest,
  ) {}

  /**
   * The answer for the client: a complete result as it is; an upstream's
   * input_required with its requestState sealed into keygate's. Refused
   * when the session noted a refusal the client must get as an error
   * (the upstream's -32021, a state for another version of the record).
   */
  answer<T extends Record<string, unknown>>(result: T): T {
    this.refusal();
    if (result.resultType !== 'input_required') return result;
    const input = this.forwarded.input!;
    const answeredBy = input.answeredBy;
    const inputRequests = result.inputRequests as Record<string, unknown> | undefined;
    if (answeredBy === undefined) throw new RpcError(RPC.INTERNAL_ERROR, 'An input-required answer came from no known server');
    if (this.round >= MAX_INPUT_ROUNDS) {
      throw new RpcError(RPC.INTERNAL_ERROR, `The MCP server still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
    }
    if (inputRequests !== undefined && Object.keys(inputRequests).length > MAX_INPUT_REQUESTS) {
      throw new RpcError(RPC.INTERNAL_ERROR, `The MCP server asked for more than ${MAX_INPUT_REQUESTS} inputs at once`);
    }
    const upstreamState = typeof result.requestState === 'string' ? result.requestState : undefined;
    const sealed: UpstreamRound = {
      k: 'upstream',
      s: answeredBy.id,
      v: answeredBy.version,
      r: this.round + 1,
      ...(upstreamState !== undefined && { u: upstreamState }),
    };
    let requestState: string;
    try {
      requestState = this.states.mint(sealed, this.binding);
    } catch (error) {
      if (error instanceof RequestStateRefused)
        throw new RpcError(RPC.INTERNAL_ERROR, "The MCP server's requestState is too large to pass on");
      throw error;
    }
    return { resultType: 'input_required', ...(inputRequests !== undefined && { inputRequests }), requestState } as unknown as T;
  }

  /** The error for the client when the request failed: a refusal the session noted, or the failure itself. */
  failure(error: unknown): unknown {
    try {
      this.refusal();
    } catch (refusal) {
      return refusal;
    }
    return error;
  }

  private refusal(): void {
    const input = this.forwarded.input;
    if (input?.stale) throw invalidState();
    if (input?.refused !== undefined) {
      const { code, message, data } = input.refused;
      throw new RpcError(code, message, data);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
