import { Express, Request } from 'express';
import { stateOf } from './request-state';

/** The label of a request that no route or mount matched (a 404, usually). */
export const UNMATCHED = 'unmatched';

/**
 * Records which route pattern (`/api/v1/api-keys/:id`) served each request of
 * `app`, for metrics and logs, where the raw URL would open a series per id.
 *
 * It cannot be read when the response finishes: Express restores req.baseUrl
 * when an error leaves a router, so `req.baseUrl + req.route.path` is then
 * `/:id`. Express assigns req.baseUrl on entering a mount and req.route on
 * dispatching a route; accessors for both on the app's request prototype catch
 * those assignments while the mount path is still known, and keep the values
 * in the request's state. Without a route (a JWT rejected before the router),
 * the deepest mount path stands in. Mount paths here are literals, so
 * lower-casing them keeps `/API/v1/...` from opening new series.
 *
 * This is the one place that patches Express. Reading the same from the
 * public API (a middleware on each mount, req.route at the end) left both as
 * own properties of every request, and cost ~12 us of CPU per tools/list
 * (+9%) and ~0.04 of the benchmark ratio, in each of seven paired runs.
 * route-pattern.spec.ts fails if Express's request prototype changes underneath.
 */
export function trackRoutePatterns(app: Express): void {
  Object.defineProperties(app.request, {
    baseUrl: {
      configurable: true,
      enumerable: true,
      get(this: Request) {
        return stateOf(this).baseUrl;
      },
      // Express's router puts back what it found on leaving (restore), undefined when it found nothing.
      set(this: Request, value: string | undefined) {
        const state = stateOf(this);
        state.baseUrl = value;
        if (value !== undefined && value.length > (state.mountPattern?.length ?? 0)) state.mountPattern = value.toLowerCase();
      },
    },
    route: {
      configurable: true,
      enumerable: true,
      get(this: Request) {
        return stateOf(this).route;
      },
      set(this: Request, value: { path?: unknown } | undefined) {
        const state = stateOf(this);
        state.route = value;
        if (typeof value?.path === 'string') state.routePattern = joinPattern((state.baseUrl ?? '').toLowerCase(), value.path);
      },
    },
  });
}

export function routePatternOf(req: Request): string {
  const state = stateOf(req);
  return state.routePattern ?? state.mountPattern ?? UNMATCHED;
}

function joinPattern(mount: string, path: string): string {
  return path === '/' && mount !== '' ? mount : mount + path;
}
