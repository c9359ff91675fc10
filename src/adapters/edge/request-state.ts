import { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { KeyValidationListener } from './key-validation-listener';

/**
 * What this service's middleware keeps about one request, in one object of a
 * fixed shape. Each property added to a request or response object grows its
 * property store, and under load those stores are most of what survives into
 * the old generation; one property per request instead of half a dozen keeps
 * major collections rare.
 */
export interface RequestState {
  /** performance.now() when Express first saw the request. */
  startedAt: number;
  /** The values Express assigns to req.baseUrl and req.route (see route-pattern). */
  baseUrl: string | undefined;
  route: unknown;
  mountPattern: string | undefined;
  routePattern: string | undefined;
  keyValidationListeners: KeyValidationListener[] | undefined;
  /** The request's id, and its logger once something logs (see request-logging). */
  requestId: string | undefined;
  log: Logger | undefined;
}

const STATE = Symbol('requestState');

type Carrier = IncomingMessage & { [STATE]?: RequestState };

/** The request's state, made on first use. */
export function stateOf(req: IncomingMessage): RequestState {
  const carrier = req as Carrier;
  return (carrier[STATE] ??= {
    startedAt: performance.now(),
    baseUrl: undefined,
    route: undefined,
    mountPattern: undefined,
    routePattern: undefined,
    keyValidationListeners: undefined,
    requestId: undefined,
    log: undefined,
  });
}
