import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Express, Request, RequestHandler } from 'express';
import { Logger, stdSerializers } from 'pino';
import { pinoHttp } from 'pino-http';
import { stateOf } from './request-state';
import { routePatternOf } from './route-pattern';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Up to 64 characters of letters, digits and `._:-`: enough for UUIDs and trace ids, too short for a key. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** An incoming id is kept when it is a sane token that does not look like a credential. */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || !SANE_REQUEST_ID.test(header)) return null;
  return looksSecret(header) ? null : header;
}

/** An API key or a JWT put where it does not belong (a path, a request id) still must not reach a log. */
export function scrubSecrets(text: string): string {
  return text.replace(/svc_[A-Za-z0-9]*/gi, 'svc_[redacted]').replace(/eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_.-]*/g, '[redacted-jwt]');
}

function looksSecret(text: string): boolean {
  return scrubSecrets(text) !== text;
}

/**
 * One JSON line per finished request with its id, method, path (never the
 * query string, headers or body), route pattern, status and time; req.log
 * carries the id for anything logged while handling it. The id comes from a
 * sane X-Request-Id or is generated, and is echoed in the response.
 */
export function requestLogging(app: Express, logger: Logger): RequestHandler {
  // Below info no request line is ever written; pino-http's per-request work
  // would be spent for nothing, so only the id and req.log are kept.
  if (!logger.isLevelEnabled('info')) return requestIdOnly(app, logger);
  return pinoHttp({
    logger,
    wrapSerializers: false,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = acceptedRequestId(req.headers['x-request-id']) ?? randomUUID();
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    serializers: {
      req: (req: Request) => ({
        id: req.id,
        method: req.method,
        path: scrubSecrets((req.originalUrl ?? req.url).split('?')[0]),
        ip: req.ip,
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: stdSerializers.err,
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (req, _res, value: object) => ({ ...value, route: routePatternOf(req as Request) }),
    customErrorObject: (req, _res, _error, value: object) => ({ ...value, route: routePatternOf(req as Request) }),
    // Scrapes and liveness probes every few seconds would drown the lines that matter.
    autoLogging: { ignore: (req) => req.url === '/metrics' || req.url === '/healthz' },
  });
}

/**
 * Most requests never log below info, so req.log is made on first use. It and
 * req.id are accessors on the app's request prototype over the request's
 * state: a pino child per request is the largest allocation of an otherwise
 * silent request, and each property added to a request costs a copy of its
 * property store.
 */
function requestIdOnly(app: Express, logger: Logger): RequestHandler {
  Object.defineProperties(app.request, {
    id: {
      configurable: true,
      get(this: Request) {
        return stateOf(this).requestId;
      },
      set(this: Request, value: string) {
        stateOf(this).requestId = value;
      },
    },
    log: {
      configurable: true,
      get(this: Request) {
        const state = stateOf(this);
        return (state.log ??= logger.child({ req: { id: state.requestId } }));
      },
      set(this: Request, value: Logger) {
        stateOf(this).log = value;
      },
    },
  });
  return (req, res, next) => {
    const id = acceptedRequestId(req.headers['x-request-id']) ?? randomUUID();
    res.setHeader(REQUEST_ID_HEADER, id);
    req.id = id;
    next();
  };
}
