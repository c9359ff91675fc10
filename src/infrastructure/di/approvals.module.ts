import { Container } from 'inversify';
import { DataSource } from 'typeorm';
import { Sha256ContentDigest } from '../../adapters/crypto/sha256-content-digest';
import { ApprovalsController } from '../../adapters/http/controllers/approvals.controller';
import { PostgresToolCallApprovalStore } from '../../adapters/persistence/approvals/postgres-tool-call-approval.store';
import { Clock } from '../../application/ports/clock.port';
import { SecretBox } from '../../application/ports/secret-box.port';
import { ToolCallApprovalStore } from '../../application/ports/tool-call-approval-store.port';
import { UnitOfWork } from '../../application/ports/unit-of-work.port';
import { ClaimToolCallApproval } from '../../application/use-cases/approvals/claim-tool-call-approval.use-case';
import { DecideApproval } from '../../application/use-cases/approvals/decide-approval.use-case';
import { ListApprovals } from '../../application/use-cases/approvals/list-approvals.use-case';
import { ToolRuleGate } from '../../application/use-cases/gateway/tools/tool-rule-gate';
import { approvalPageUrl } from '../config/approval-page-url';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** Pending approvals a key may hold at once; past it a call that needs one is refused. */
const MAX_PENDING_PER_KEY = 20;

/** Per-call approvals (issue 28): the store, the call's claim, and the approvers' routes. */
export function bindApprovals(c: Container): void {
  c.bind<ToolCallApprovalStore>(TOKENS.ToolCallApprovalStore).toResolvedValue(
    (ds: DataSource, box: SecretBox) => new PostgresToolCallApprovalStore(ds.manager, box),
    [TOKENS.DataSource, TOKENS.SecretBox],
  );
  c.bind(ClaimToolCallApproval).toResolvedValue(
    (store: ToolCallApprovalStore, work: UnitOfWork, gate: ToolRuleGate, clock: Clock, config: Config) =>
      new ClaimToolCallApproval(store, work, gate, new Sha256ContentDigest(), clock, {
        ttlSeconds: config.mcp.approvalTtlSeconds,
        maxPendingPerKey: MAX_PENDING_PER_KEY,
        pageUrl: approvalPageUrl(config),
      }),
    [TOKENS.ToolCallApprovalStore, TOKENS.UnitOfWork, ToolRuleGate, TOKENS.Clock, TOKENS.Config],
  );
  c.bind(ListApprovals).toResolvedValue(
    (store: ToolCallApprovalStore, clock: Clock) => new ListApprovals(store, clock),
    [TOKENS.ToolCallApprovalStore, TOKENS.Clock],
  );
  c.bind(DecideApproval).toResolvedValue(
    (store: ToolCallApprovalStore, work: UnitOfWork, clock: Clock) => new DecideApproval(store, work, clock),
    [TOKENS.ToolCallApprovalStore, TOKENS.UnitOfWork, TOKENS.Clock],
  );
  c.bind(ApprovalsController).toResolvedValue(
    (list: ListApprovals, decide: DecideApproval) => new ApprovalsController(list, decide),
    [ListApprovals, DecideApproval],
  );
}
