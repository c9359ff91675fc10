import { ConnectPrompt, takesUrlElicitation } from '../mcp-error-map';
import { RequestStateBinding, SealedRequestState } from './sealed-request-state';

/** What keygate seals into the requestState of an input_required that asked the client's user to connect. */
const CONNECT_STATE = { k: 'connect' } as const;

/** Whether an opened requestState is one keygate gave for a connect page (its retry is the call again, from scratch). */
export function isConnectState(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { k?: unknown }).k === CONNECT_STATE.k;
}

/**
 * How one 2026-07-28 tools/call asks for a connection its caller lacks: a
 * client that declared URL elicitation in its envelope gets input_required
 * (the connect page, and a state bound to key, endpoint and tool that brings
 * the call back, when keygate checks the connection again); any other a tool
 * error. `asked` says whether it was asked, so the answer is not taken for an
 * upstream's round.
 */
export class ConnectRound {
  asked = false;
  readonly prompt: ConnectPrompt;

  constructor(states: SealedRequestState, clientCapabilities: unknown, binding: RequestStateBinding, base: string | undefined) {
    this.prompt =
      base !== undefined && takesUrlElicitation(clientCapabilities)
        ? {
            kind: 'input-required',
            base,
            requestState: () => {
              this.asked = true;
              return states.mint(CONNECT_STATE, binding);
            },
          }
        : { kind: 'tool-error' };
  }
}
