import { Router } from 'express';
import { Metrics } from '../../observability/metrics';

/** GET /metrics in the Prometheus text format. */
export function metricsRouter(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const { contentType, body } = await metrics.exposition();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(body);
  });
  return router;
}
