import { Request, RequestHandler, Response } from 'express';
import { Metrics } from '../../observability/metrics';
import { onKeyValidation } from './key-validation-events';
import { routePatternOf } from './route-pattern';

const STARTED = Symbol('started');

type Timed = Response & { [STARTED]?: number };

/**
 * Counts and times every response by method, route pattern and status, and
 * counts key validations by outcome. Needs trackRoutePatterns installed. The
 * listeners are made once, not per request: this runs on every /mcp call.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  const recordValidation = (outcome: Parameters<Metrics['recordKeyValidation']>[0]) => metrics.recordKeyValidation(outcome);
  function finished(this: Timed) {
    const req = this.req as Request;
    metrics.recordResponse(req.method, routePatternOf(req), this.statusCode, (performance.now() - this[STARTED]!) / 1000);
  }
  return (_req, res, next) => {
    (res as Timed)[STARTED] = performance.now();
    onKeyValidation(res, recordValidation);
    res.on('finish', finished);
    next();
  };
}
