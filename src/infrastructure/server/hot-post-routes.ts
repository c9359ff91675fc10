import { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';

/** A POST route answered ahead of Express's router (McpController.hotPosts). */
export interface HotPostRoute {
  /** Its pattern, as metrics and logs label it. */
  pattern: string;
  /** The route's params when `url` is exactly this route's (no query string, nothing to decode), else null: Express serves it. */
  match(url: string): Record<string, string> | null;
  handlers: RequestHandler[];
}

export interface HotPostOptions {
  /** The app-level middleware every request runs first (request id and log line, HTTP metrics). */
  before: RequestHandler[];
  routes: HotPostRoute[];
  /** What Express would reach after the routes: the 404 and the error handler. */
  notFound: RequestHandler;
  onError: ErrorRequestHandler;
}

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: unknown) => void;

/**
 * /mcp is the hot path, and Express's router cost it ~6% of its CPU on
 * every call: a path match and a closure per layer over nine layers, and
 * their garbage. A POST to one of `routes`, exactly, is run here instead:
 * what app.handle sets up (express/lib/application.js), then the app-level
 * middleware and the route's handlers in order, with Express's rules for
 * next (an error skips to an error handler; a thrown error or a rejected
 * promise is one), the same 404 and error handler after them, and the route
 * pattern recorded as the router would. Any other request, and any URL that
 * needs more than a literal match (a query string, a trailing slash, upper
 * case, an encoded name), goes to Express unchanged.
 */
export function serveHotPosts(app: Express, options: HotPostOptions): void {
  const expressApp = app as unknown as { handle: Handle; request: object; response: object };
  const routerHandle = expressApp.handle.bind(app);
  const routes = options.routes.map((route) => ({
    ...route,
    chain: [...options.before, ...route.handlers],
    route: { path: route.pattern },
  }));
  expressApp.handle = (req, res, callback) => {
    // A callback means the app is mounted inside another: that one's router decides.
    if (req.method === 'POST' && callback === undefined && req.url !== undefined) {
      for (const route of routes) {
        const params = route.match(req.url);
        if (params !== null) return run(route.chain, route.route, params, req as Request, res as Response);
      }
    }
    routerHandle(req, res, callback);
  };

  function run(chain: RequestHandler[], route: { path: string }, params: Record<string, string>, req: Request, res: Response): void {
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, expressApp.request);
    Object.setPrototypeOf(res, expressApp.response);
    if (!res.locals) res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.originalUrl || req.url;
    req.baseUrl = '';
    req.params = params;
    // Through the app's route-pattern accessor (route-pattern.ts), as the router's dispatch assigns it.
    req.route = route;
    let index = 0;
    const next = (error?: unknown): void => {
      // 'route' and 'router' leave the route: past it, Express finds nothing else for these URLs but its 404.
      if (error === 'route' || error === 'router') index = chain.length;
      const failed = Boolean(error) && error !== 'route' && error !== 'router';
      for (;;) {
        const handler = chain[index++];
        if (handler === undefined) return finish(failed ? error : undefined);
        // As Express's Layer: a four-argument function handles errors only, the others requests only.
        if (handler.length > 3 === failed) return invoke(handler, failed ? error : undefined, next);
      }
    };
    const invoke = (handler: RequestHandler | ErrorRequestHandler, error: unknown, then: (error?: unknown) => void): void => {
      try {
        const returned: unknown =
          error === undefined ? (handler as RequestHandler)(req, res, then) : (handler as ErrorRequestHandler)(error, req, res, then);
        if (isThenable(returned)) returned.then(undefined, (rejection: unknown) => then(rejection || new Error('Rejected promise')));
      } catch (thrown) {
        then(thrown);
      }
    };
    // Express's final handler, reached only when the error handler gives up (the answer had begun): the connection is all there is to end.
    const last = (error?: unknown): void => {
      if (error) req.socket?.destroy();
    };
    const finish = (error: unknown): void => {
      if (error === undefined)
        return invoke(options.notFound, undefined, (thrown) => (thrown ? invoke(options.onError, thrown, last) : last()));
      invoke(options.onError, error, last);
    };
    next();
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `url` is exactly `path`. */
export function literalPath(path: string): (url: string) => Record<string, string> | null {
  return (url) => (url === path ? {} : null);
}

/** `url` is `prefix` and one segment of plain characters, taken as param `name` (nothing to decode). */
export function onePlainSegment(prefix: string, name: string): (url: string) => Record<string, string> | null {
  const pattern = /^[A-Za-z0-9_-]+$/;
  return (url) => {
    if (!url.startsWith(prefix)) return null;
    const value = url.slice(prefix.length);
    return pattern.test(value) ? { [name]: value } : null;
  };
}
