import { CallToolResult } from '@modelcontextprotocol/server';
import { requiredScopes, ToolTarget } from '../../application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { CallTool } from '../../application/use-cases/gateway/tools/call-tool.use-case';
import { resultOf } from '../../application/use-cases/gateway/tools/tool-call-audit';
import { auditedToolName } from './audited-tool-name';
import { KeyPrincipal } from '../../application/use-cases/validate-key/validate-key.use-case';
import { UpstreamContext } from '../../application/ports/upstream-mcp.port';
import { AuditOrigin } from '../../domain/audit';
import { ConnectionRequiredError } from '../../domain/errors/connection-required.error';
import { UnknownToolError } from '../../domain/errors/unknown-tool.error';
import { ApprovalRequiredError } from '../../domain/errors/approval-required.error';
import { OTHER_TOOL } from '../../domain/usage';
import { ToolOutcome } from '../../application/use-cases/gateway/tool-outcome';
import { CONNECT_BY_TOOL_ERROR, ConnectPrompt, connectionAnswer, toMcpError } from './mcp-error-map';
import { ToolCallRecorder, UsageVerdict } from './tool-call-recorder';
import { AllowedCalls } from './tool-gate';
import { toCallToolResult } from './tool-presenter';

/** tools/call params once params-check and the tool gate passed them. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * One tools/call, whichever path answers it (the SDK server's handler or the
 * tools/call fast path), so both run, record and render it alike: the target
 * the tool gate found, one audit event, the presenter within `recordBytes`.
 * Every failure leaves as an RpcError, but a missing connection of the
 * caller's, which `prompt` (what the client can take) answers.
 */
export class ToolCallRunner {
  constructor(
    private readonly callTool: CallTool,
    private readonly recorder: ToolCallRecorder,
    private readonly log: (error: unknown) => void,
  ) {}

  async run(
    principal: KeyPrincipal,
    origin: AuditOrigin,
    calls: AllowedCalls,
    params: ToolCallParams,
    recordBytes: number,
    upstream?: UpstreamContext,
    prompt: ConnectPrompt = CONNECT_BY_TOOL_ERROR,
  ): Promise<CallToolResult> {
    const { name, arguments: args } = params;
    const { userId } = principal;
    // An access token's keyId names its subject's sessions, not a key: the trail names the user instead.
    const byUser = principal.accessToken !== undefined;
    const keyId = byUser ? null : principal.keyId;
    try {
      const target = this.targetOf(principal, calls, name);
      const call = { name: auditedToolName(target, name), arguments: args, requiredScopes: requiredScopes(target, args) };
      const outcome = await this.recorder.run(
        principal,
        origin,
        call,
        () => this.callTool.execute({ userId, keyId, byUser, origin, target, arguments: args, upstream }),
        resultOf,
        (value, failed, failure) => usageOf(target, value, failed, failure),
      );
      return toCallToolResult(outcome, recordBytes);
    } catch (error) {
      if (error instanceof ConnectionRequiredError || error instanceof ApprovalRequiredError)
        return connectionAnswer(error, prompt, this.log);
      throw toMcpError(error, this.log);
    }
  }

  /** The gate's target; an unknown or held call is counted as denied (an unknown name as tool `other`) before it is refused. */
  private targetOf(principal: KeyPrincipal, calls: AllowedCalls, name: string): ToolTarget {
    try {
      return targetOf(calls, name);
    } catch (error) {
      if (error instanceof UnknownToolError) this.recorder.refused(principal, OTHER_TOOL);
      else if (error instanceof ApprovalRequiredError) this.recorder.refused(principal, name);
      throw error;
    }
  }
}

/**
 * called, unless an upstream failed (its transport, a timeout, an error
 * status, a malformed answer: an external tool's error outcome or a throw);
 * a call that stopped for a connection or an approval, or that keygate kept
 * from its upstream (a changed pin; a tool the listing lacks, as `other`), was refused.
 */
function usageOf(target: ToolTarget, outcome: ToolOutcome | undefined, failed: boolean, failure: unknown): UsageVerdict {
  if (failure instanceof ConnectionRequiredError || failure instanceof ApprovalRequiredError) return DENIED;
  if (target.kind !== 'external') return CALLED;
  if (outcome?.kind === 'error' && outcome.refused !== undefined) return outcome.refused === 'unknown' ? UNKNOWN : DENIED;
  return failed || outcome?.kind === 'error' ? UPSTREAM_ERROR : CALLED;
}

const CALLED: UsageVerdict = { outcome: 'called' };
const DENIED: UsageVerdict = { outcome: 'denied' };
const UNKNOWN: UsageVerdict = { outcome: 'denied', tool: OTHER_TOOL };
const UPSTREAM_ERROR: UsageVerdict = { outcome: 'upstream_error' };

/** The target the tool gate found for a call of `name`; a call it did not see never runs. */
function targetOf(calls: AllowedCalls, name: string): ToolTarget {
  const target = calls.get(name);
  if (target === null) throw new UnknownToolError(name);
  if (target === undefined) throw new Error('A tools/call reached the MCP server without passing the tool gate');
  // Held for an approval: nothing runs, and the caller is asked to have it approved (approvalAnswer).
  if (target.kind === 'held') throw target.error;
  return target;
}
