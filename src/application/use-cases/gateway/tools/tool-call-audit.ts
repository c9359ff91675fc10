import { AuditOrigin, AuditRecord, AuditValue } from '../../../../domain/audit';
import { isResource, Resource } from '../../../../domain/scope';
import { ACTIONS, SUBRESOURCES } from '../../../../domain/tool';
import { isUuid } from '../../../../domain/uuid';
import { auditEvent, callerActor } from '../../actor-event';
import { ToolOutcome } from '../tool-outcome';

/**
 * ok and error: the call ran; input_required: it ran, and its upstream asked
 * the (2026-07-28) client for input first, to be answered on a retry, which
 * is a call of its own; denied: the tool gate refused it for scope.
 */
export type ToolCallResult = 'ok' | 'error' | 'input_required' | 'denied';

/** One tools/call as the edge saw it. The arguments are read for a built-in tool's action, subresource and id only. */
export interface ToolCallFacts {
  /** Null when the call came with the user's OAuth access token: the actor is then the user. */
  keyId: string | null;
  /** The key's owner, or the token's subject. */
  userId: string;
  origin: AuditOrigin;
  tool: string;
  arguments: Record<string, unknown> | undefined;
  result: ToolCallResult;
  durationMs: number;
  /** SHA-256 hex of the arguments' canonical JSON (`{}` when absent): proves what was sent without keeping it. */
  argsSha256: string;
  /** Every scope the call needs, not only those the key lacked. */
  requiredScopes: readonly string[];
  /** A denied call's deciding rule, when a rule (not its scopes) refused it. */
  rule?: DecidingRule;
  at: Date;
}

/**
 * The rule that refused a call, as tool.denied names it: where it lives
 * (`server` with the record's id, or `built_in`), its index in the tool's
 * list, its effect, and whether it matched or could not be evaluated
 * (`error`, `needs_arguments`). Never its message or condition, which the
 * record shows, and never the arguments.
 */
export interface DecidingRule {
  source: 'server' | 'built_in';
  server_id?: string;
  index: number;
  effect: string;
  outcome: string;
}

/**
 * tool.called or tool.denied. Nothing of the arguments is kept but a built-in
 * tool's action, subresource and record id, and only when they are values the
 * tool knows (an action of the list, a subresource of the tool, a UUID): any
 * other text there is the caller's, and could be anything.
 */
export function toolCallEvent(facts: ToolCallFacts): AuditRecord {
  const subject = { userId: facts.userId, keyId: facts.keyId, target: { type: 'tool', id: facts.tool } };
  const command = commandOf(facts.tool, facts.arguments);
  // Members in code-unit order, as the chain hashes them: nothing to reorder per event.
  return auditEvent(
    facts.result === 'denied' ? 'tool.denied' : 'tool.called',
    callerActor({ userId: facts.userId, keyId: facts.keyId, byUser: true }),
    subject,
    facts.origin,
    facts.at,
    {
      action: command.action,
      args_sha256: facts.argsSha256,
      duration_ms: milliseconds(facts.durationMs),
      outcome: facts.result,
      record_id: command.record_id,
      required_scopes: [...facts.requiredScopes],
      ...(facts.rule && { rule: ruleDetails(facts.rule) }),
      subresource: command.subresource,
      tool: facts.tool,
    },
  );
}

/** The rule's members in code-unit order, as the chain hashes them. */
function ruleDetails(rule: DecidingRule): { [field: string]: AuditValue } {
  return {
    effect: rule.effect,
    index: rule.index,
    outcome: rule.outcome,
    ...(rule.server_id !== undefined && { server_id: rule.server_id }),
    source: rule.source,
  };
}

/** A tool error (isError) is a call that ran and failed, whether ours or an upstream's. */
export function resultOf(outcome: ToolOutcome): Exclude<ToolCallResult, 'denied'> {
  if (outcome.kind === 'error') return 'error';
  if (outcome.kind === 'relayed' && outcome.result.resultType === 'input_required') return 'input_required';
  return outcome.kind === 'relayed' && outcome.result.isError === true ? 'error' : 'ok';
}

const NO_COMMAND = { action: null, subresource: null, record_id: null };

function commandOf(
  tool: string,
  args: Record<string, unknown> | undefined,
): { action: string | null; subresource: string | null; record_id: string | null } {
  if (!isResource(tool) || args === undefined) return NO_COMMAND;
  const { action, subresource, id } = args;
  return {
    action: typeof action === 'string' && (ACTIONS as readonly string[]).includes(action) ? action : null,
    subresource: isSubresource(tool, subresource) ? subresource : null,
    record_id: isUuid(id) ? id.toLowerCase() : null,
  };
}

function isSubresource(tool: Resource, value: unknown): value is string {
  return typeof value === 'string' && SUBRESOURCES[tool].includes(value);
}

/** Whole microseconds: finer than a timer's noise, and a number every JSON reader keeps exactly. */
function milliseconds(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) / 1000 : 0;
}
