import { inputRequired } from '@modelcontextprotocol/server';
import { UpstreamContext, UpstreamRelay } from '../../../application/ports/upstream-mcp.port';
import { RPC } from '../json-rpc';
import { outageOf, UnavailableRpcError } from '../mcp-error-map';
import { RpcError } from '../rpc-error';
import { relayedCapabilities } from '../upstream/relaying-client';
import { ParkedOutcome, WireError } from './parked-call';
import { ParkedCallGone, ParkedCalls } from './parked-calls';
import { OpenedRequestState } from './opened-request-state';
import { RequestStateBinding, SealedRequestState } from './sealed-request-state';

/** What keygate's requestState of a parked call carries: the call, the round answered, the call's deadline. */
interface ParkedState {
  k: string;
  r: number;
  d: number;
}

export interface FirstCall {
  binding: RequestStateBinding;
  /** The request's `_meta` clientCapabilities. */
  clientCapabilities: unknown;
  /** The first request's relay (progress on its stream), if it has one. */
  firstRound?: UpstreamRelay;
  signal: AbortSignal;
  run(upstream: UpstreamContext | undefined): Promise<Record<string, unknown>>;
}

/**
 * A 2026-07-28 tools/call, resources/read or prompts/get whose 2025 upstream
 * asks its client for input during the request (increment 8 of
 * docs/design/mcp-2026-07-28.md). The
 * upstream contact declares what the client declared (sampling, elicitation,
 * roots: what keygate relays) and stays open on this replica; each upstream
 * request becomes an input_required result whose requestState (sealed, bound
 * to key, endpoint, method and tool, prompt or URI) names the held call and the round; the client's
 * retry, on any replica, hands its inputResponses to the upstream's waiting
 * requests and gets the call's next outcome. A client that declared none of
 * them gets today's call, in which such a request is refused to the upstream.
 */
export class ParkedToolCalls {
  constructor(
    private readonly calls: ParkedCalls,
    private readonly states: SealedRequestState,
  ) {}

  /** A first call (no requestState). */
  async first(input: FirstCall): Promise<Record<string, unknown>> {
    const declared = relayedCapabilities(isObject(input.clientCapabilities) ? input.clientCapabilities : {});
    if (Object.keys(declared).length === 0) return input.run(input.firstRound && { relay: input.firstRound });
    const { call, outcome } = await this.calls.start({
      owner: input.binding.keyId,
      run: (relay) => input.run({ relay, clientCapabilities: declared }),
      errorOf: wireErrorOf,
      firstRound: input.firstRound,
      signal: input.signal,
    });
    return this.answer(outcome, call.id, call.deadline, input.binding);
  }

  /**
   * A retry: its state opened, unless it was for this request already (refused:
   * -32602 as the SDK answers it), then the call's next outcome. Undefined when
   * the state is keygate's but not a parked call's. `gate` runs first, for
   * a round the edge did not gate already (a read's or a prompt's access).
   */
  async retry(
    state: unknown,
    responses: Record<string, unknown> | undefined,
    binding: RequestStateBinding,
    gate?: () => Promise<void>,
  ): Promise<Record<string, unknown> | undefined> {
    const opened = OpenedRequestState.open(this.states, state, binding).payload as Partial<ParkedState> | null;
    if (!isParkedState(opened)) return undefined;
    // A refused round takes nothing: the call stays held for a retry that passes.
    await gate?.();
    let outcome: ParkedOutcome;
    try {
      outcome = await this.calls.resume(opened.k, opened.r, responses ?? {}, opened.d);
    } catch (error) {
      if (error instanceof ParkedCallGone) throw new RpcError(RPC.INVALID_PARAMS, error.message, { reason: error.reason });
      throw error;
    }
    return this.answer(outcome, opened.k, opened.d, binding);
  }

  private answer(outcome: ParkedOutcome, id: string, deadline: number, binding: RequestStateBinding): Record<string, unknown> {
    if (outcome.kind === 'complete') return outcome.result;
    if (outcome.kind === 'failed') throw rpcErrorOf(outcome.error);
    const state: ParkedState = { k: id, r: outcome.round, d: deadline };
    return inputRequired({ inputRequests: outcome.inputRequests as never, requestState: this.states.mint(state, binding) });
  }
}

function wireErrorOf(error: unknown): WireError {
  const outage = outageOf(error);
  if (error instanceof RpcError)
    return { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }), ...(outage && { outage }) };
  return { code: RPC.INTERNAL_ERROR, message: 'Internal error', ...(outage && { outage }) };
}

function rpcErrorOf({ code, message, data, outage }: WireError): RpcError {
  return outage ? new UnavailableRpcError(code, message, outage) : new RpcError(code, message, data);
}

function isParkedState(value: Partial<ParkedState> | null): value is ParkedState {
  return (
    value !== null && typeof value === 'object' && typeof value.k === 'string' && typeof value.r === 'number' && typeof value.d === 'number'
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
