import { RPC } from '../json-rpc';
import { RpcError } from '../rpc-error';
import { RequestStateBinding, RequestStateRefused, SealedRequestState } from './sealed-request-state';

/**
 * A retry's requestState opened (decrypted, its binding and date checked)
 * once for its request, then handed to whichever kind of round its payload
 * names: a parked call's (parked-tool-calls.ts) or a 2026 upstream's
 * (input-required-rounds.ts). Each of them also takes the sealed string
 * itself and opens it then.
 */
export class OpenedRequestState {
  private constructor(readonly payload: unknown) {}

  /** Opens `state` for the request `binding` names; a state that does not open is the SDK's -32602. */
  static open(states: SealedRequestState, state: unknown, binding: RequestStateBinding): OpenedRequestState {
    if (state instanceof OpenedRequestState) return state;
    try {
      return new OpenedRequestState(states.open<unknown>(state, binding));
    } catch (error) {
      if (error instanceof RequestStateRefused) throw invalidState();
      throw error;
    }
  }
}

/** The SDK's own answer to a requestState that does not verify (ServerOptions.requestState.verify), word for word. */
export function invalidState(): RpcError {
  return new RpcError(RPC.INVALID_PARAMS, 'Invalid or expired requestState', { reason: 'invalid_request_state' });
}
