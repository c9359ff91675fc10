import { Actor } from '../../../domain/actor';
import { ToolCallApproval } from '../../../domain/approval';
import { Clock } from '../../ports/clock.port';
import { ToolCallApprovalStore } from '../../ports/tool-call-approval-store.port';
import { requireUuid } from '../guards';

export interface ListApprovalsInput {
  actor: Actor;
  /** Only this user's keys' approvals (admins; for anyone else it must be their own id). */
  userId?: string;
}

/** Approvals one listing shows at most. */
export const MAX_LISTED_APPROVALS = 100;

/**
 * GET /api/v1/approvals: the pending, unexpired approvals the actor may
 * decide, newest first: their own keys' calls under owner rules, and for an
 * admin every call under admin rules (`userId` narrows to one user's keys).
 */
export class ListApprovals {
  constructor(
    private readonly store: ToolCallApprovalStore,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListApprovalsInput): Promise<ToolCallApproval[]> {
    const ownerId = input.userId === undefined ? undefined : requireUuid(input.userId, 'user_id');
    if (ownerId !== undefined && !input.actor.isAdmin && ownerId !== input.actor.userId) return [];
    const decider = { userId: input.actor.userId, admin: input.actor.isAdmin };
    return this.store.listPending({ decider, ownerId }, this.clock.now(), MAX_LISTED_APPROVALS);
  }
}
