import { Request, Response, Router } from 'express';
import { ReportLeakedKeys } from '../../../application/use-cases/report-leaked-keys/report-leaked-keys.use-case';
import { presentLeakVerdict } from '../dto/leak-verdict.presenter';
import { rawBody } from '../middleware/raw-body';
import { requestIdOf } from '../../edge/request-logging';

/** 1000 reports of bounded fields fit with room to spare. */
export const MAX_REPORT_BYTES = 1024 * 1024;

/**
 * Leak reports from a secret scanner (GitHub's partner format). Not behind
 * the users' JWT: the request is authenticated by its signature, which the
 * use-case checks over the raw body before anything else.
 */
export class SecretScanningController {
  constructor(private readonly report: ReportLeakedKeys) {}

  router(): Router {
    const router = Router();
    router.post('/reports', rawBody(MAX_REPORT_BYTES, '1 MiB'), (req, res) => this.reports(req, res));
    return router;
  }

  async reports(req: Request, res: Response): Promise<void> {
    const verdicts = await this.report.execute({
      payload: req.body as Buffer,
      keyIdentifier: req.get('Github-Public-Key-Identifier'),
      signature: req.get('Github-Public-Key-Signature'),
      origin: { requestId: requestIdOf(req) ?? null, ip: req.ip ?? null },
    });
    res.setHeader('Cache-Control', 'no-store');
    res.json(verdicts.map(presentLeakVerdict));
  }
}
