import { Router } from 'express';
import { problemType, sendProblem } from '../../edge/problem';

/** Answers whether the database can be reached right now. */
export type ReadinessCheck = () => Promise<void>;

export function healthRouter(ready: ReadinessCheck): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await ready();
      res.json({ status: 'ready' });
    } catch {
      sendProblem(res, {
        type: problemType('not-ready'),
        title: 'Service Unavailable',
        status: 503,
        detail: 'The database is not reachable',
      });
    }
  });
  return router;
}
