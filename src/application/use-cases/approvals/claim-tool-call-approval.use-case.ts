import { isLive, ToolCallApproval } from '../../../domain/approval';
import { AuditOrigin, NO_ORIGIN } from '../../../domain/audit';
import { ApprovalRequiredError } from '../../../domain/errors';
import { Clock } from '../../ports/clock.port';
import { ContentDigest } from '../../ports/content-digest.port';
import { ToolCallApprovalStore } from '../../ports/tool-call-approval-store.port';
import { UnitOfWork } from '../../ports/unit-of-work.port';
import { ToolRuleGate } from '../gateway/tools/tool-rule-gate';
import { ToolTarget } from '../gateway/tools/tool-target';
import { RuleVerdict } from '../tool-rules/evaluate-tool-rules';
import { boundCall } from './approval-binding';
import { approvalEvent } from './approval-events';

export interface ClaimToolCallApprovalInput {
  keyId: string;
  /** The key's owner. */
  userId: string;
  /** The name the call used. */
  name: string;
  target: ToolTarget;
  arguments?: Record<string, unknown>;
  /** The require_approval rule that matched. */
  rule: RuleVerdict;
  origin?: AuditOrigin;
}

/**
 * What a call held by a require_approval rule may do: run (its approval was
 * granted and this call used it up), be refused (its approval was denied, or
 * the key holds too many pending ones), or wait for a person (`pending`: an
 * ApprovalRequiredError naming the approval page).
 */
export type ApprovalClaim =
  | { kind: 'approved'; approval: ToolCallApproval }
  | { kind: 'refused'; message: string }
  | { kind: 'pending'; error: ApprovalRequiredError };

export interface ApprovalSettings {
  ttlSeconds: number;
  /** Pending approvals one key may hold; past it a call is refused. */
  maxPendingPerKey: number;
  /** The console's page for one approval. */
  pageUrl: (approvalId: string) => string;
}

/**
 * Turns a require_approval verdict into an answer for the call (issue 28).
 * The call's approval is the newest bound to exactly it (key, tool, argument
 * digest, record and version). A granted one is used up by a conditional
 * update, so one call runs per approval whichever replica takes it; a denied
 * one refuses the same call until it expires; a pending one is named again.
 * Otherwise (none, used, expired, or lost to a race) a new pending approval
 * is held. `approval.expired` is recorded when a call finds its approval
 * expired (nothing sweeps).
 */
export class ClaimToolCallApproval {
  constructor(
    private readonly store: ToolCallApprovalStore,
    private readonly work: UnitOfWork,
    private readonly gate: ToolRuleGate,
    private readonly digest: ContentDigest,
    private readonly clock: Clock,
    private readonly settings: ApprovalSettings,
  ) {}

  async execute(input: ClaimToolCallApprovalInput): Promise<ApprovalClaim> {
    const rules = await this.gate.rulesFor(input.target);
    const approvers = rules?.rules[input.rule.index]?.approvers ?? 'owner';
    const bound = boundCall(input.keyId, input.target, input.arguments, rules ?? { source: input.rule.source, rules: [] }, this.digest);
    const now = this.clock.now();
    const origin = input.origin ?? NO_ORIGIN;
    const actor = { type: 'key' as const, id: input.keyId };
    const latest = await this.store.latestFor(bound.binding);
    if (latest !== null && !isLive(latest, now) && (latest.state === 'pending' || latest.state === 'granted')) {
      await this.work.run(({ audit }) => audit.append([approvalEvent('approval.expired', actor, latest, now, origin)]));
    } else if (latest !== null && isLive(latest, now)) {
      if (latest.state === 'denied') return { kind: 'refused', message: deniedMessage(input.rule) };
      if (latest.state === 'pending') return { kind: 'pending', error: this.required(latest, input.rule) };
      if (latest.state === 'granted') {
        const used = await this.work.run(async ({ approvals, audit }) => {
          if (!(await approvals.consume(latest.id, now))) return false;
          await audit.append([approvalEvent('approval.used', actor, latest, now, origin)]);
          return true;
        });
        if (used) return { kind: 'approved', approval: latest };
      }
    }
    const created = await this.work.run(async ({ approvals, audit }) => {
      const approval = await approvals.createWithinLimit(
        {
          ...bound.binding,
          userId: input.userId,
          toolName: input.name,
          serverName: bound.serverName,
          arguments: input.arguments ?? {},
          ruleIndex: input.rule.index,
          ruleMessage: input.rule.message,
          approvers,
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.settings.ttlSeconds * 1000),
        },
        this.settings.maxPendingPerKey,
        now,
      );
      if (approval !== null) await audit.append([approvalEvent('approval.requested', actor, approval, now, origin)]);
      return approval;
    });
    if (created === null) {
      const max = this.settings.maxPendingPerKey;
      return {
        kind: 'refused',
        message: `This call needs approval, and this key already has ${max} pending approvals: wait for them to be decided or to expire`,
      };
    }
    return { kind: 'pending', error: this.required(created, input.rule) };
  }

  private required(approval: ToolCallApproval, rule: RuleVerdict): ApprovalRequiredError {
    return new ApprovalRequiredError(
      approval.id,
      this.settings.pageUrl(approval.id),
      `rule ${rule.index} of ${rule.tool}: ${rule.message}`,
    );
  }
}

function deniedMessage(rule: RuleVerdict): string {
  return `Refused: this call's approval was denied (rule ${rule.index} of ${rule.tool}: ${rule.message})`;
}
