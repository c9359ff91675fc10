import { RequestHandler } from 'express';
import { Metrics } from '../../observability/metrics';
import { onKeyValidation } from './key-validation-events';
import { routePatternOf } from './route-pattern';

/**
 * Counts and times every response by method, route pattern and status, and
 * counts key validations by outcome. Needs trackRoutePattern mounted before it.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const stop = metrics.httpRequestDuration.startTimer();
    onKeyValidation(res, (outcome) => metrics.recordKeyValidation(outcome));
    res.once('finish', () => {
      const labels = { method: req.method, route: routePatternOf(req), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      stop(labels);
    });
    next();
  };
}
