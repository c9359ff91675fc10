import { Response } from 'express';
import { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/server';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { ApprovalRequiredError, clipInput } from '../../domain/errors';
import { ClaimToolCallApproval } from '../../application/use-cases/approvals/claim-tool-call-approval.use-case';
import { AuthorizeToolCall, ToolTarget } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { NAMESPACED_VIEW, UpstreamView } from '../../application/use-cases/gateway/external/upstream-view';
import { insufficientScopeChallenge } from '../edge/bearer-challenge';
import { RPC, sendRpcError } from './json-rpc';
import { toolCallShapeProblem } from './params-check';
import { ToolCall } from './tool-call-recorder';
import { AuditOrigin } from '../../domain/audit';
import { RuleVerdict } from '../../application/use-cases/tool-rules/evaluate-tool-rules';
import { DecidingRule } from '../../application/use-cases/gateway/tools/tool-call-audit';

/**
 * What each tool a POST calls runs, by the name called (null: no such tool),
 * once every call in the POST was allowed. A target depends on the name
 * alone (the arguments only decide whether a call is allowed), so the SDK
 * server's tools/call handler finds its target by name.
 */
export type AllowedCalls = ReadonlyMap<string, ToolTarget | HeldCall | null>;

/**
 * A call a require_approval rule holds: it runs nothing, and the runner
 * answers it with the approval's page in the form the client can take
 * (mcp-error-map.ts, approvalAnswer), as it answers a missing connection.
 */
export interface HeldCall {
  kind: 'held';
  error: ApprovalRequiredError;
}

export const NO_CALLS: AllowedCalls = new Map();

/**
 * Authorizes each tools/call of a POST once, before the MCP server runs
 * anything: once the SDK answers, the HTTP status is already 200, and an
 * authorization failure must be a 403 with an `insufficient_scope` challenge
 * (RFC 6750 section 3.1) naming the scope to ask for. Returns what the calls
 * run, for the server to take without a second look-up, or null when it
 * answered. `denied` records the refused call (the audit trail) before the 403; the calls
 * after it in a batch are not looked at, so they are neither run nor denied.
 * `view` is the endpoint's (/mcp's when left out): which tools a name can call.
 * `challenge` adds to the WWW-Authenticate value (with OAuth on /mcp, the resource metadata URL).
 * `approvals`, when given, turns a require_approval refusal of a key's call
 * into its approval's answer: a granted one is used up and the call runs, a
 * pending one holds the call, a denied one refuses it (403, as a rule does).
 */
export async function authorizeToolCalls(
  authorize: Pick<AuthorizeToolCall, 'execute'>,
  principal: KeyPrincipal,
  messages: readonly JSONRPCMessage[],
  res: Response,
  denied: (call: ToolCall) => Promise<void>,
  view?: UpstreamView,
  challenge: (value: string) => string = (value) => value,
  approvals?: Pick<ClaimToolCallApproval, 'execute'>,
  origin?: () => AuditOrigin,
): Promise<AllowedCalls | null> {
  let allowed: Map<string, ToolTarget | HeldCall | null> | undefined;
  for (const message of messages) {
    // json-rpc-body let only valid messages through, and of those with a method the strict request
    // schema takes exactly the ones with an id (the notification schema, as strict, refuses one):
    // an id test says what isJSONRPCRequest would, without a schema parse per call.
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    // params-check refuses a malformed call (-32602) before this runs; its shape test keeps one out here too.
    const { params } = message as JSONRPCRequest;
    if (toolCallShapeProblem(params) !== null) continue;
    const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
    const { userId, scopes, accessToken } = principal;
    // An access token is no key: its rules see an empty key id and name.
    const caller = { keyId: accessToken ? '' : principal.keyId, keyName: principal.keyName ?? '', admin: false };
    const decision = await authorize.execute({ userId, scopes, name, arguments: args, view, subjectToken: accessToken?.token, caller });
    if (decision.kind === 'allowed' || decision.kind === 'unknown') {
      allow((allowed ??= new Map<string, ToolTarget | HeldCall | null>()), name, decision.kind === 'allowed' ? decision.target : null);
      continue;
    }
    let refusal = decision.kind === 'refused' ? decision.message : '';
    if (decision.kind === 'refused' && approvals && !accessToken && asksApproval(decision.rule)) {
      const claim = await approvals.execute({
        keyId: principal.keyId,
        userId,
        name,
        target: decision.target,
        arguments: args,
        rule: decision.rule,
        origin: origin?.(),
      });
      if (claim.kind !== 'refused') {
        allow(
          (allowed ??= new Map<string, ToolTarget | HeldCall | null>()),
          name,
          claim.kind === 'approved' ? decision.target : { kind: 'held', error: claim.error },
        );
        continue;
      }
      refusal = claim.message;
    }
    // The audit trail names an upstream tool as /mcp does, whichever endpoint it was called on.
    // The 403 waits for the event; a failure to write it is thrown, and the edge answers it (503 while PostgreSQL is away).
    await denied({
      name: view?.server ? NAMESPACED_VIEW.toolName(view.server, name) : name,
      arguments: args,
      requiredScopes: decision.required,
      ...(decision.kind === 'refused' && { rule: deciding(decision.rule) }),
    });
    if (decision.kind === 'refused') {
      // No scope would help, so no insufficient_scope challenge: the error and its status are the scope denial's.
      sendRpcError(res, 403, id, RPC.INSUFFICIENT_SCOPE, refusal, {
        rule: { tool: decision.rule.tool, index: decision.rule.index },
      });
      return null;
    }
    res.setHeader('WWW-Authenticate', challenge(insufficientScopeChallenge(decision.scopes)));
    const needed = decision.scopes.join(' ');
    sendRpcError(res, 403, id, RPC.INSUFFICIENT_SCOPE, `Insufficient scope: calling ${clipInput(name)} this way needs ${needed}`, {
      required_scopes: decision.scopes,
    });
    return null;
  }
  return allowed ?? NO_CALLS;
}

/**
 * Notes what a call of `name` runs. Calls are found by name alone, so in a batch calling one tool with different
 * arguments, a held call keeps the name held: another call's approval must not let it run.
 */
function allow(calls: Map<string, ToolTarget | HeldCall | null>, name: string, entry: ToolTarget | HeldCall | null): void {
  if (calls.get(name)?.kind !== 'held') calls.set(name, entry);
}

/** A require_approval rule that matched (one that could not be evaluated refuses, whatever its effect). */
function asksApproval(rule: RuleVerdict): boolean {
  return rule.effect === 'require_approval' && rule.outcome === 'matched';
}

/** What the audit trail keeps of the rule that refused a call: where it is and how it decided, never its message or the arguments. */
function deciding(rule: RuleVerdict): DecidingRule {
  return {
    source: rule.source.kind,
    ...(rule.source.kind === 'server' && { server_id: rule.source.recordId }),
    index: rule.index,
    effect: rule.effect,
    outcome: rule.outcome,
  };
}
