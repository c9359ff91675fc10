import { Router } from 'express';
import { GetUsage } from '../../../application/use-cases/usage/get-usage.use-case';
import { ValidationError } from '../../../domain/errors';
import { actorOf } from '../../edge/access-token-auth';
import { UsageReportDto } from '../dto/usage.dto';

const PARAMETERS = ['key_id', 'tool', 'from', 'to', 'bucket', 'group_by', 'user_id'];

/** GET /api/v1/usage: tool calls counted per bucket (the use-case parses and checks every parameter). */
export class UsageController {
  constructor(private readonly getUsage: GetUsage) {}

  router(): Router {
    const router = Router();
    router.get('/', async (req, res) => {
      const unknown = Object.keys(req.query).find((name) => !PARAMETERS.includes(name));
      if (unknown !== undefined) throw ValidationError.single(unknown, 'is not a known query parameter');
      const { query } = req;
      const report = await this.getUsage.execute({
        actor: actorOf(res.locals),
        keyId: query.key_id,
        tool: query.tool,
        from: query.from,
        to: query.to,
        bucket: query.bucket,
        groupBy: query.group_by,
        userId: query.user_id,
      });
      res.setHeader('Cache-Control', 'no-store');
      res.json(UsageReportDto.from(report));
    });
    return router;
  }
}
