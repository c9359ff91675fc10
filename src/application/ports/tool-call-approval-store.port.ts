import { ApprovalBinding, ToolCallApproval } from '../../domain/approval';

/** A call to hold: everything but what the store sets (id, state, decision). */
export type NewApproval = Omit<ToolCallApproval, 'id' | 'state' | 'decidedBy' | 'decidedAt'>;

export interface ApprovalFilter {
  /** Who lists: only approvals they may decide (their own keys' under `approvers: owner`, any under `admin` for an admin). */
  decider: { userId: string; admin: boolean };
  /** Only the approvals of this user's keys. */
  ownerId?: string;
}

/**
 * Approvals of single tool calls (issue 28), where every replica sees them.
 * Every change is conditional on the row's state and expiry, so two replicas
 * (or two approvers) racing on one approval cannot both change it.
 */
export interface ToolCallApprovalStore {
  /** Holds a new pending approval unless the key has `maxPending` live pending ones already (null then). */
  createWithinLimit(approval: NewApproval, maxPending: number, now: Date): Promise<ToolCallApproval | null>;
  /** The newest approval bound to exactly this call (any state, expired ones too), or null. */
  latestFor(binding: ApprovalBinding): Promise<ToolCallApproval | null>;
  find(id: string): Promise<ToolCallApproval | null>;
  /** Pending approvals not expired at `now`, newest first, at most `limit`. */
  listPending(filter: ApprovalFilter, now: Date, limit: number): Promise<ToolCallApproval[]>;
  /** pending → granted or denied, if still pending and not expired at `now`; the changed approval, else null. */
  decide(id: string, to: 'granted' | 'denied', by: string, now: Date): Promise<ToolCallApproval | null>;
  /** granted → used, if still granted and not expired at `now`: true for the one caller that won. */
  consume(id: string, now: Date): Promise<boolean>;
}
