import { Request, RequestHandler, Response } from 'express';
import { Metrics } from '../../observability/metrics';
import { onKeyValidation } from '../../edge/key-validation-events';
import { stateOf } from '../../edge/request-state';
import { routePatternOf } from '../../edge/route-pattern';

/**
 * Counts and times every response by method, route pattern and status, and
 * counts key validations by outcome. Needs trackRoutePatterns installed. The
 * listeners are made once, not per request: this runs on every /mcp call.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  const recordValidation = (outcome: Parameters<Metrics['recordKeyValidation']>[0]) => metrics.recordKeyValidation(outcome);
  function finished(this: Response) {
    const req = this.req as Request;
    metrics.recordResponse(req.method, routePatternOf(req), this.statusCode, (performance.now() - stateOf(req).startedAt) / 1000);
  }
  return (_req, res, next) => {
    onKeyValidation(res, recordValidation);
    res.on('finish', finished);
    next();
  };
}
