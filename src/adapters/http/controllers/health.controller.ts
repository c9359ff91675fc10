import { Router } from 'express';
import { problemType, sendProblem } from '../../edge/problem';

/** Answers whether this replica should get requests now: the database can be reached, and it is not shutting down. */
export type ReadinessCheck = () => Promise<void>;

/** What a ReadinessCheck throws once the replica received SIGTERM. */
export class ShuttingDown extends Error {
  constructor() {
    super('This replica is shutting down');
  }
}

export function healthRouter(ready: ReadinessCheck): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await ready();
      res.json({ status: 'ready' });
    } catch (error) {
      sendProblem(res, {
        type: problemType('not-ready'),
        title: 'Service Unavailable',
        status: 503,
        detail: error instanceof ShuttingDown ? error.message : 'The database is not reachable',
      });
    }
  });
  return router;
}
