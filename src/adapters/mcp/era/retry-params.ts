import { RpcId } from '../json-rpc';
import { EraRejection } from './era-gate';
import { modernError } from './modern-answer';

/** Answers one retry may carry: keygate passes on at most 32 input requests per round (input-required-rounds.ts). */
export const MAX_INPUT_RESPONSES = 32;

/**
 * A 2026 request's retry fields (MRTR): `inputResponses` an object whose
 * every entry is a result object (ElicitResult, CreateMessageResult,
 * ListRootsResult; keys keygate did not ask for are ignored, not refused),
 * `requestState` a string. The SDK lifts them out before a handler
 * runs and drops a malformed map without a word, so a call would run as if
 * the client had answered nothing; keygate refuses it instead (-32602,
 * nothing run, nothing charged). Returns the refusal, or undefined.
 */
export function retryParamsRefusal(id: RpcId, params: unknown): EraRejection | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const { inputResponses, requestState } = params as Record<string, unknown>;
  if ('inputResponses' in params) {
    if (!isPlainObject(inputResponses))
      return modernError(id, -32602, 'Invalid params: inputResponses must be an object of input responses', { field: 'inputResponses' });
    if (Object.keys(inputResponses).length > MAX_INPUT_RESPONSES) {
      return modernError(id, -32602, `Invalid params: inputResponses may hold at most ${MAX_INPUT_RESPONSES} answers`, {
        field: 'inputResponses',
      });
    }
    // Keys are the client's; they are not echoed, so a long or odd key costs nothing here.
    if (!Object.values(inputResponses).every(isPlainObject)) {
      return modernError(id, -32602, 'Invalid params: every entry of inputResponses must be a result object', { field: 'inputResponses' });
    }
  }
  if ('requestState' in params && typeof requestState !== 'string') {
    return modernError(id, -32602, 'Invalid params: requestState must be a string', { field: 'requestState' });
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
