import { Actor } from '../../../domain/actor';
import { isLive, mayDecide, ToolCallApproval } from '../../../domain/approval';
import { ConflictError, NotFoundError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { ToolCallApprovalStore } from '../../ports/tool-call-approval-store.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { requireUuid } from '../guards';
import { approvalEvent } from './approval-events';

export interface DecideApprovalInput {
  actor: Actor;
  id: string;
  decision: 'granted' | 'denied';
}

/**
 * POST /api/v1/approvals/:id/approve and /deny. Only an approver may decide
 * (anyone else gets a 404, as for an approval that does not exist), only a
 * pending, unexpired approval can be (409 otherwise), and the change is
 * conditional on both, so two approvers racing decide it once. The decision
 * and its `approval.granted` / `approval.denied` event commit together.
 */
export class DecideApproval {
  constructor(
    private readonly store: ToolCallApprovalStore,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async execute(input: DecideApprovalInput): Promise<ToolCallApproval> {
    const id = requireUuid(input.id);
    const approval = await this.store.find(id);
    if (approval === null || !mayDecide(approval, { userId: input.actor.userId, admin: input.actor.isAdmin }))
      throw new NotFoundError('approval', id);
    const now = this.clock.now();
    if (approval.state !== 'pending') throw new ConflictError(`The approval is ${approval.state}, not pending`);
    if (!isLive(approval, now)) throw new ConflictError('The approval has expired: the call must be made again');
    const action = input.decision === 'granted' ? 'approval.granted' : 'approval.denied';
    const decided = await this.work.run(async ({ approvals, audit }) => {
      const changed = await approvals.decide(id, input.decision, input.actor.userId, now);
      if (changed !== null)
        await audit.append([approvalEvent(action, { type: 'user', id: input.actor.userId }, changed, now, input.actor.origin)]);
      return changed;
    });
    if (decided === null) throw new ConflictError('The approval was decided or expired meanwhile');
    return decided;
  }
}
