import { randomUUID } from 'node:crypto';
import { ApprovalFilter, NewApproval, ToolCallApprovalStore } from '../../src/application/ports/tool-call-approval-store.port';
import { ApprovalBinding, boundTo, isLive, mayDecide, ToolCallApproval } from '../../src/domain/approval';

/** ToolCallApprovalStore in memory, with the same conditional changes as the PostgreSQL one. */
export class InMemoryToolCallApprovalStore implements ToolCallApprovalStore {
  readonly rows: ToolCallApproval[] = [];

  async createWithinLimit(approval: NewApproval, maxPending: number, now: Date): Promise<ToolCallApproval | null> {
    const stale = now.getTime() - 86_400_000;
    for (let i = this.rows.length - 1; i >= 0; i--)
      if (this.rows[i].keyId === approval.keyId && this.rows[i].expiresAt.getTime() < stale) this.rows.splice(i, 1);
    const pending = this.rows.filter((row) => row.keyId === approval.keyId && row.state === 'pending' && isLive(row, now));
    if (pending.length >= maxPending) return null;
    const row: ToolCallApproval = { ...approval, id: randomUUID(), state: 'pending', decidedBy: null, decidedAt: null };
    this.rows.push(row);
    return { ...row };
  }

  async latestFor(binding: ApprovalBinding): Promise<ToolCallApproval | null> {
    const found = this.rows.filter((row) => boundTo(row, binding)).at(-1);
    return found ? { ...found } : null;
  }

  async find(id: string): Promise<ToolCallApproval | null> {
    const found = this.rows.find((row) => row.id === id);
    return found ? { ...found } : null;
  }

  async listPending(filter: ApprovalFilter, now: Date, limit: number): Promise<ToolCallApproval[]> {
    return this.rows
      .filter((row) => row.state === 'pending' && isLive(row, now))
      .filter((row) => mayDecide(row, filter.decider))
      .filter((row) => filter.ownerId === undefined || row.userId === filter.ownerId)
      .reverse()
      .slice(0, limit)
      .map((row) => ({ ...row }));
  }

  async decide(id: string, to: 'granted' | 'denied', by: string, now: Date): Promise<ToolCallApproval | null> {
    const row = this.rows.find((r) => r.id === id && r.state === 'pending' && isLive(r, now));
    if (!row) return null;
    Object.assign(row, { state: to, decidedBy: by, decidedAt: now });
    return { ...row };
  }

  async consume(id: string, now: Date): Promise<boolean> {
    const row = this.rows.find((r) => r.id === id && r.state === 'granted' && isLive(r, now));
    if (!row) return false;
    row.state = 'used';
    return true;
  }
}
