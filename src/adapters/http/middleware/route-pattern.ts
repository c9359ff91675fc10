import { Express, Request } from 'express';

/** The label of a request that no route or mount matched (a 404, usually). */
export const UNMATCHED = 'unmatched';

const BASE_URL = Symbol('baseUrl');
const ROUTE = Symbol('route');
const MOUNT_PATTERN = Symbol('mountPattern');
const ROUTE_PATTERN = Symbol('routePattern');

interface Tracked {
  [BASE_URL]?: string;
  [ROUTE]?: unknown;
  [MOUNT_PATTERN]?: string;
  [ROUTE_PATTERN]?: string;
}

/**
 * Records which route pattern (`/api/v1/api-keys/:id`) served each request of
 * `app`, for metrics and logs, where the raw URL would open a series per id.
 *
 * It cannot be read when the response finishes: Express restores req.baseUrl
 * when an error leaves a router, so `req.baseUrl + req.route.path` is then
 * `/:id`. Express assigns req.baseUrl on entering a mount and req.route on
 * dispatching a route; accessors for both on the app's request prototype catch
 * those assignments while the mount path is still known (on the prototype, not
 * per request, so the hot path allocates nothing for it). Without a route (a
 * JWT rejected before the router), the deepest mount path stands in. Mount
 * paths here are literals, so lower-casing them keeps `/API/v1/...` from
 * opening new series.
 */
export function trackRoutePatterns(app: Express): void {
  Object.defineProperties(app.request, {
    baseUrl: {
      configurable: true,
      enumerable: true,
      get(this: Tracked) {
        return this[BASE_URL];
      },
      set(this: Tracked, value: string) {
        this[BASE_URL] = value;
        if (value.length > (this[MOUNT_PATTERN]?.length ?? 0)) this[MOUNT_PATTERN] = value.toLowerCase();
      },
    },
    route: {
      configurable: true,
      enumerable: true,
      get(this: Tracked) {
        return this[ROUTE];
      },
      set(this: Tracked, value: { path?: unknown } | undefined) {
        this[ROUTE] = value;
        if (typeof value?.path === 'string') this[ROUTE_PATTERN] = joinPattern((this[BASE_URL] ?? '').toLowerCase(), value.path);
      },
    },
  });
}

export function routePatternOf(req: Request): string {
  const tracked = req as Tracked;
  return tracked[ROUTE_PATTERN] ?? tracked[MOUNT_PATTERN] ?? UNMATCHED;
}

function joinPattern(mount: string, path: string): string {
  return path === '/' && mount !== '' ? mount : mount + path;
}
