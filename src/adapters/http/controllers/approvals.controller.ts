import { Request, Router } from 'express';
import { DecideApproval } from '../../../application/use-cases/approvals/decide-approval.use-case';
import { ListApprovals } from '../../../application/use-cases/approvals/list-approvals.use-case';
import { ValidationError } from '../../../domain/errors';
import { actorOf } from '../../edge/access-token-auth';
import { ApprovalDto } from '../dto/approval.dto';

type ApprovalRequest = Request<{ id: string }>;

/** /api/v1/approvals: the calls a require_approval rule holds, for their approvers (the use-cases say who). */
export class ApprovalsController {
  constructor(
    private readonly list: ListApprovals,
    private readonly decide: DecideApproval,
  ) {}

  router(): Router {
    const router = Router();
    router.get('/', async (req, res) => {
      const unknown = Object.keys(req.query).find((name) => name !== 'user_id');
      if (unknown !== undefined) throw ValidationError.single(unknown, 'is not a known query parameter');
      const userId = req.query.user_id;
      if (userId !== undefined && typeof userId !== 'string') throw ValidationError.single('user_id', 'must be a UUID');
      res.json((await this.list.execute({ actor: actorOf(res.locals), userId })).map((approval) => ApprovalDto.from(approval)));
    });
    router.post('/:id/approve', async (req: ApprovalRequest, res) => {
      res.json(ApprovalDto.from(await this.decide.execute({ actor: actorOf(res.locals), id: req.params.id, decision: 'granted' })));
    });
    router.post('/:id/deny', async (req: ApprovalRequest, res) => {
      res.json(ApprovalDto.from(await this.decide.execute({ actor: actorOf(res.locals), id: req.params.id, decision: 'denied' })));
    });
    return router;
  }
}
