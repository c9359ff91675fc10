import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey } from '../../../domain/api-key';
import { NotFoundError } from '../../../domain/errors';
import { isResource } from '../../../domain/scope';
import { ToolPin } from '../../../domain/tool';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { ExternalTools } from '../../ports/external-tools.port';
import { QuotaBalances } from '../../ports/quota-balances.port';
import { McpConnectionStore } from '../../ports/mcp-connection-store.port';
import { UsageBudget } from '../../ports/usage-budget.port';
import { authOf } from '../gateway/external/server-auth';
import { ConnectUrl } from '../gateway/external/upstream-credentials';
import { changedMessage, ToolPins } from '../gateway/external/tool-pins';
import { requiredScopes } from '../gateway/tools/authorize-tool-call.use-case';
import { ToolRuleGate } from '../gateway/tools/tool-rule-gate';
import { ToolTarget } from '../gateway/tools/tool-target';
import { grantedScopes } from '../granted-scopes';
import { requireUuid } from '../guards';
import { ExplainedRule, ExplainStep, StepOutcome } from './explain-step';
import { keyStanding } from './key-standing';
import { isLive } from '../../../domain/approval';
import { ContentDigest } from '../../ports/content-digest.port';
import { ToolCallApprovalStore } from '../../ports/tool-call-approval-store.port';
import { RuleSet } from '../tool-rules/evaluate-tool-rules';
import { boundCall } from '../approvals/approval-binding';

export interface ExplainPorts {
  keys: ApiKeyRepository;
  external: ExternalTools;
  pins: ToolPins;
  rules: ToolRuleGate;
  budget: UsageBudget;
  quotas: QuotaBalances;
  connections: McpConnectionStore;
  connectUrl: ConnectUrl;
  clock: Clock;
  /** Per-call approvals, read only (the approval step); absent, a needed approval is reported as needed. */
  approvals?: { store: ToolCallApprovalStore; digest: ContentDigest };
}

export interface ExplainToolCallInput {
  actor: Actor;
  keyId: string;
  /** The name a client calls on /mcp: `projects`, `files__echo`. */
  tool: string;
  /** Absent: rules that read the arguments cannot be decided (`needs_arguments`). */
  arguments?: Record<string, unknown>;
}

export interface ToolCallExplanation {
  keyId: string;
  tool: string;
  /** `needs_arguments`: no step refuses, but a rule reads arguments the asker did not give. */
  decision: 'allowed' | 'refused' | 'needs_arguments';
  /** The first step that refuses (or cannot decide), in words; else that every step lets the call through. */
  reason: string;
  steps: ExplainStep[];
}

/** Where the named tool is found, without asking its server: a built-in, or an upstream tool and its pin (null: none seen). */
type Found = { target: ToolTarget; pin: ToolPin | null } | null;

/**
 * "Why can't this key use X?": every step a tools/call of `tool` by the key
 * would pass on /mcp, in order (key, tool, scope, pin, connection, rules,
 * rate limit, quota, approval), each judged on its own. Read-only: no upstream is
 * contacted (an upstream tool is known from its pins, which keygate keeps
 * from the server's listings), no rate window is counted, no credit taken,
 * nothing written, not even an audit event (reading one's own key's policy
 * changes nothing, as GET does not). Another user's key is 404 for a
 * non-admin, as on GET /api-keys/:id.
 */
export class ExplainToolCall {
  private readonly keys: ApiKeyRepository;
  private readonly external: ExternalTools;
  private readonly pins: ToolPins;
  private readonly rules: ToolRuleGate;
  private readonly budget: UsageBudget;
  private readonly quotas: QuotaBalances;
  private readonly connections: McpConnectionStore;
  private readonly connectUrl: ConnectUrl;
  private readonly clock: Clock;
  private readonly approvals: ExplainPorts['approvals'];

  constructor(ports: ExplainPorts) {
    ({
      keys: this.keys,
      external: this.external,
      pins: this.pins,
      rules: this.rules,
      budget: this.budget,
      quotas: this.quotas,
      connections: this.connections,
      connectUrl: this.connectUrl,
      clock: this.clock,
      approvals: this.approvals,
    } = ports);
  }

  async execute(input: ExplainToolCallInput): Promise<ToolCallExplanation> {
    const id = requireUuid(input.keyId, 'key_id');
    const key = await this.keys.findById(id);
    if (!key || !mayActFor(input.actor, key.userId)) throw new NotFoundError('API key', id);
    const now = this.clock.now();
    const found = await this.find(key.userId, input.tool);
    const rules = await this.ruleSteps(key, found, input.arguments);
    const steps: ExplainStep[] = [
      { step: 'key', ...keyStanding(key, now) },
      toolStep(input.tool, found),
      scopeStep(key, found, input.arguments),
      pinStep(found),
      await this.connectionStep(key, found),
      rules.step,
      await this.rateStep(key, now),
      await this.quotaStep(key, now),
      rules.approval,
    ];
    return { keyId: key.id, tool: input.tool, ...decide(steps), steps };
  }

  private async find(userId: string, name: string): Promise<Found> {
    if (isResource(name)) return { target: { kind: 'built-in', resource: name }, pin: null };
    const tool = await this.external.resolve(userId, name);
    if (tool === null) return null;
    const pin = (await this.pins.view(tool.server.id)).find((candidate) => candidate.tool === tool.tool) ?? null;
    return pin === null ? null : { target: { kind: 'external', tool }, pin };
  }

  /** The tool's rules as the call would meet them (the same gate), and the approval the deciding one asks for. */
  private async ruleSteps(
    key: ApiKey,
    found: Found,
    args: Record<string, unknown> | undefined,
  ): Promise<{ step: ExplainStep; approval: ExplainStep }> {
    const noApproval: ExplainStep = { step: 'approval', outcome: 'not_applicable', detail: 'No rule asks for an approval', needed: false };
    if (found === null)
      return { step: { step: 'rules', outcome: 'not_applicable', detail: 'No such tool', rules: [] }, approval: noApproval };
    const set = await this.rules.rulesFor(found.target);
    const { verdict, steps } = await this.rules.evaluate({
      target: found.target,
      userId: key.userId,
      scopes: key.scopes,
      caller: { keyId: key.id, keyName: key.name, admin: false },
      arguments: args,
      argsKnown: args !== undefined,
    });
    const rules: ExplainedRule[] = (set?.rules ?? []).map(({ effect, message }, index) => {
      const seen = steps.find((step) => step.index === index);
      if (seen === undefined) return { index, effect, message, outcome: 'not_evaluated' };
      return { index, effect, message, outcome: seen.outcome, ...(seen.outcome === 'error' && { error: seen.error }) };
    });
    if (verdict === null) {
      const detail = rules.length === 0 ? 'The tool has no rules' : 'No rule matches this call';
      return { step: { step: 'rules', outcome: 'pass', detail, rules }, approval: noApproval };
    }
    const which = `rule ${verdict.index} of ${verdict.tool}`;
    if (verdict.outcome === 'needs_arguments') {
      const detail = `${which} reads the call's arguments: explain with "arguments" to know whether it matches`;
      return { step: { step: 'rules', outcome: 'needs_arguments', detail, rules }, approval: noApproval };
    }
    if (verdict.outcome === 'matched' && verdict.effect === 'require_approval') {
      const detail = `${which} asks for an approval: ${verdict.message}`;
      const approval = await this.approvalStep(key, found.target, args, set, `${which}: ${verdict.message}`);
      return { step: { step: 'rules', outcome: 'pass', detail, rules }, approval };
    }
    const detail = verdict.outcome === 'matched' ? `Refused by ${which}: ${verdict.message}` : `Refused: ${verdict.message}`;
    return { step: { step: 'rules', outcome: 'fail', detail, rules }, approval: noApproval };
  }

  /** The approval this very call would meet, looked up, never made: granted passes (once), anything else fails. */
  private async approvalStep(
    key: ApiKey,
    target: ToolTarget,
    args: Record<string, unknown> | undefined,
    set: RuleSet | null,
    why: string,
  ): Promise<ExplainStep> {
    const needed: ExplainStep = {
      step: 'approval',
      outcome: 'fail',
      detail: `This call would need an approval (${why}): the call asks for one, which the key's approver then decides`,
      needed: true,
      approval: 'needed',
    };
    if (this.approvals === undefined || set === null) return needed;
    const { store, digest } = this.approvals;
    const found = await store.latestFor(boundCall(key.id, target, args, set, digest).binding);
    if (found === null || !isLive(found, this.clock.now()) || found.state === 'used') return needed;
    const base = { step: 'approval' as const, needed: true, approval: found.state, approvalId: found.id };
    if (found.state === 'granted') return { ...base, outcome: 'pass', detail: `This call was approved (${why}): it would run, once` };
    if (found.state === 'denied') return { ...base, outcome: 'fail', detail: `This call's approval was denied (${why})` };
    return { ...base, outcome: 'fail', detail: `This call waits for its approval (${why})` };
  }

  /**
   * What the upstream call would carry: a static server its record's headers; a user_secret or oauth server the
   * owner's own connection (none or a failed one: the call asks them to connect); a token_exchange server the
   * caller's OAuth access token, which a key does not have.
   */
  private async connectionStep(key: ApiKey, found: Found): Promise<ExplainStep> {
    if (found === null || found.target.kind !== 'external')
      return {
        step: 'connection',
        outcome: 'not_applicable',
        detail: found === null ? 'No such tool' : 'Built-in tools need no credential',
      };
    const { server } = found.target.tool;
    const name = String(server.data.name);
    const auth = authOf(server.data);
    if (auth.type === 'static') return { step: 'connection', outcome: 'not_applicable', detail: `${name} is called with its own headers` };
    if (auth.type === 'token_exchange')
      return {
        step: 'connection',
        outcome: 'fail',
        detail: `${name} exchanges the caller's OAuth access token for its own, and a key has none: call it with an access token on /mcp`,
      };
    const connection = await this.connections.find(key.userId, server.id);
    if (connection?.state === 'connected')
      return { step: 'connection', outcome: 'pass', detail: `The key's owner is connected to ${name} (${auth.type})` };
    const connectUrl = this.connectUrl(server.id);
    const why = connection?.state === 'failed' ? 'has a connection that failed' : 'is not connected';
    return { step: 'connection', outcome: 'fail', detail: `The key's owner ${why} to ${name}: connect at ${connectUrl}`, connectUrl };
  }

  private async rateStep(key: ApiKey, now: Date): Promise<ExplainStep> {
    const limit = key.rateLimit;
    if (limit === null) return { step: 'rate_limit', outcome: 'not_applicable', detail: 'The key has no rate limit' };
    const standing = await this.budget.peekRate(key.budgetId, limit, now);
    const shown = {
      remaining: standing.remaining,
      limit: limit.limit,
      windowSeconds: limit.windowSeconds,
      resetSeconds: standing.resetSeconds,
    };
    const window = `${limit.limit} requests per ${limit.windowSeconds} s`;
    return standing.remaining > 0
      ? { step: 'rate_limit', outcome: 'pass', detail: `${standing.remaining} of ${window} left in this window`, ...shown }
      : {
          step: 'rate_limit',
          outcome: 'fail',
          detail: `The rate limit (${window}) is used up; the window resets in ${standing.resetSeconds} s`,
          ...shown,
        };
  }

  private async quotaStep(key: ApiKey, now: Date): Promise<ExplainStep> {
    if (key.quota === null) return { step: 'quota', outcome: 'not_applicable', detail: 'The key has no quota' };
    const remaining = (await this.quotas.read([key.budgetId], now)).get(key.budgetId) ?? 0;
    return remaining > 0
      ? { step: 'quota', outcome: 'pass', detail: `${remaining} tool calls left in the quota`, remaining }
      : { step: 'quota', outcome: 'fail', detail: 'The quota is used up until its next refill', remaining };
  }
}

function toolStep(name: string, found: Found): ExplainStep {
  if (found === null)
    return {
      step: 'tool',
      outcome: 'fail',
      detail: `No tool ${name} is offered to this key's owner: not a built-in tool, nor one keygate has seen their MCP servers list`,
    };
  const { target } = found;
  const detail =
    target.kind === 'built-in'
      ? `${name} is a built-in tool`
      : `${name} is the tool ${target.tool.tool} of the MCP server ${String(target.tool.server.data.name)}`;
  return { step: 'tool', outcome: 'pass', detail };
}

function scopeStep(key: ApiKey, found: Found, args: Record<string, unknown> | undefined): ExplainStep {
  const granted = grantedScopes(key.scopes);
  if (found === null) return { step: 'scope', outcome: 'not_applicable', detail: 'No such tool', required: [], granted, missing: [] };
  const required = requiredScopes(found.target, args);
  const missing = required.filter((scope) => !key.scopes.allows(scope));
  const outcome: StepOutcome = missing.length === 0 ? 'pass' : 'fail';
  const detail = missing.length === 0 ? `The key grants ${required.join(', ')}` : `The key lacks ${missing.join(', ')}`;
  return { step: 'scope', outcome, detail, required, granted, missing };
}

function pinStep(found: Found): ExplainStep {
  if (found === null || found.pin === null)
    return { step: 'pin', outcome: 'not_applicable', detail: found === null ? 'No such tool' : 'Built-in tools are not pinned' };
  const { pin, target } = found;
  const server = target.kind === 'external' ? String(target.tool.server.data.name) : '';
  return pin.status === 'approved'
    ? { step: 'pin', outcome: 'pass', detail: 'Its approved definition is the one served', status: 'approved' }
    : { step: 'pin', outcome: 'fail', detail: changedMessage(server, pin.tool), status: 'changed' };
}

/** The first step that refuses decides; else one that needs the arguments; else the call would be allowed. */
function decide(steps: readonly ExplainStep[]): Pick<ToolCallExplanation, 'decision' | 'reason'> {
  const refusing = steps.find((step) => step.outcome === 'fail');
  if (refusing !== undefined) return { decision: 'refused', reason: refusing.detail };
  const undecided = steps.find((step) => step.outcome === 'needs_arguments');
  if (undecided !== undefined) return { decision: 'needs_arguments', reason: undecided.detail };
  return { decision: 'allowed', reason: 'Every step lets the call through' };
}
