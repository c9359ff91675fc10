import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import { Express, Request, RequestHandler } from 'express';
import { Logger } from 'pino';
import { stateOf } from './request-state';
import { routePatternOf } from './route-pattern';
import { scrubPath, scrubSecrets } from './secret-scrubbing';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Up to 64 characters of letters, digits and `._:-`: enough for UUIDs and trace ids, too short for a key. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** An incoming id is kept when it is a sane token that does not look like a credential. */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || !SANE_REQUEST_ID.test(header)) return null;
  return looksSecret(header) ? null : header;
}

function looksSecret(text: string): boolean {
  return scrubSecrets(text) !== text;
}

/** Scrapes and liveness probes every few seconds would drown the lines that matter. */
const UNLOGGED_PATHS = new Set(['/metrics', '/healthz']);

/**
 * One JSON line per finished request (at info; at error for a 5xx; at warn
 * when the client went away first) with its id, method, path (never the query
 * string, headers or body; keys, bare 64-hex key secrets and JWTs masked,
 * percent-encoded or not),
 * client address, route pattern, status and time in ms. logOf(req) carries
 * the id for anything logged while handling it. The id comes from a sane
 * X-Request-Id or is generated, and is echoed in the response.
 *
 * Written for the hot path rather than taken from pino-http, which made a
 * child logger per request and cost ~36 us of CPU each: nothing is added to
 * the request (the id goes in its state), and its logger is made only when
 * something uses it.
 */
export function requestLogging(app: Express, logger: Logger): RequestHandler {
  rootLoggers.set(app, logger);
  const linesOn = logger.isLevelEnabled('info');
  function closed(this: ServerResponse) {
    const req = this.req as Request;
    const state = stateOf(req);
    const line = {
      req: { id: state.requestId, method: req.method, path: scrubPath(pathOf(req.originalUrl ?? req.url)), ip: req.ip },
      res: { statusCode: this.statusCode },
      responseTime: Math.round(performance.now() - state.startedAt),
      route: routePatternOf(req),
    };
    if (!this.writableFinished) logger.warn(line, 'request aborted');
    else if (this.statusCode >= 500) logger.error(line, 'request errored');
    else logger.info(line, 'request completed');
  }
  return (req, res, next) => {
    const id = acceptedRequestId(req.headers['x-request-id']) ?? randomUUID();
    res.setHeader(REQUEST_ID_HEADER, id);
    stateOf(req).requestId = id;
    if (linesOn && !UNLOGGED_PATHS.has(pathOf(req.url))) res.on('close', closed);
    next();
  };
}

/** The logger each app's requestLogging was given, found through req.app. */
const rootLoggers = new WeakMap<object, Logger>();

/** The request's id (see requestLogging). */
export function requestIdOf(req: Request): string | undefined {
  return stateOf(req).requestId;
}

/** A logger whose lines carry the request id; made on first use, as most requests log nothing. */
export function logOf(req: Request): Logger {
  const state = stateOf(req);
  return (state.log ??= rootLoggerOf(req).child({ req: { id: state.requestId } }));
}

function rootLoggerOf(req: Request): Logger {
  const logger = rootLoggers.get(req.app);
  if (logger === undefined) throw new Error('logOf needs requestLogging installed on the app');
  return logger;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
