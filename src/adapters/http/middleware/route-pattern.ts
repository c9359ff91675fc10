import { Request, RequestHandler } from 'express';

/** The label of a request that no route or mount matched (a 404, usually). */
export const UNMATCHED = 'unmatched';

interface Seen {
  mount?: string;
  route?: string;
}

const seen = new WeakMap<Request, Seen>();

/**
 * Records which route pattern (`/api/v1/api-keys/:id`) served a request, for
 * metrics and logs, where the raw URL would open a series per id.
 *
 * It cannot be read when the response finishes: Express restores req.baseUrl
 * when an error leaves a router, so `req.baseUrl + req.route.path` is then
 * `/:id`. Express assigns req.baseUrl on entering a mount and req.route on
 * dispatching a route; catching those assignments records the pattern while the
 * mount path is still known. Without a route (a JWT rejected before the
 * router), the deepest mount path stands in. Mount paths here are literals, so
 * lower-casing them keeps `/API/v1/...` from opening new series.
 */
export const trackRoutePattern: RequestHandler = (req, _res, next) => {
  const record: Seen = {};
  seen.set(req, record);
  let baseUrl = req.baseUrl;
  let route: unknown = req.route;
  Object.defineProperty(req, 'baseUrl', {
    configurable: true,
    enumerable: true,
    get: () => baseUrl,
    set: (value: string) => {
      baseUrl = value;
      if (value.length > (record.mount?.length ?? 0)) record.mount = value.toLowerCase();
    },
  });
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (value: { path?: unknown } | undefined) => {
      route = value;
      if (typeof value?.path === 'string') record.route = joinPattern(baseUrl.toLowerCase(), value.path);
    },
  });
  next();
};

export function routePatternOf(req: Request): string {
  const record = seen.get(req);
  return record?.route ?? record?.mount ?? UNMATCHED;
}

function joinPattern(mount: string, path: string): string {
  return path === '/' && mount !== '' ? mount : mount + path;
}
