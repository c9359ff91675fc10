import { ResourceRecord } from '../../domain/resource/resource-record';
import { ScopeSet } from '../../domain/scope';
import { ToolDescriptor } from '../../domain/tool';
import { UpstreamContext } from './upstream-mcp.port';
import type { UpstreamView } from './upstream-view.port';

/** A tool of one of the user's upstream MCP servers, found by its name in an endpoint's view (`<server>__<tool>` on /mcp). */
export interface ExternalTool {
  /** The mcp_servers record that registers the server, as stored: its header values are secrets, never shown. */
  server: ResourceRecord;
  /** The user the call is for: their own credential is the one a per-user server is reached with. */
  callerId: string;
  /** The OAuth access token the caller came with (secret; absent for a key): what a token_exchange server's token is made from. */
  subjectToken?: string;
  /** The tool's own name on that server. */
  tool: string;
  /** Every scope a call needs. */
  callScopes: readonly string[];
}

/**
 * What running an external tool gave: its server's result as it came, or why
 * there is none (a tool error); `refused` when keygate kept the call from
 * the upstream (`withheld`: its pinned definition changed; `unknown`: the
 * listing lacks it), which usage counts as denied, not as an upstream error.
 */
export type ExternalToolOutcome =
  { kind: 'relayed'; result: Record<string, unknown> } | { kind: 'error'; message: string; refused?: 'withheld' | 'unknown' };

/**
 * The tools of the upstream MCP servers a user registered. ListTools reads the
 * catalog; AuthorizeToolCall resolves a called name once and CallTool runs
 * what it resolved, so a call looks the server up once.
 */
export interface ExternalTools {
  /**
   * The tools each with the scopes it needs to be listed. It gets the caller's
   * scopes so that it need not contact an upstream none of whose tools they
   * could see; the caller still filters what it returns.
   */
  catalog(userId: string, scopes: ScopeSet, view?: UpstreamView, subjectToken?: string): Promise<readonly ToolDescriptor[]>;
  /**
   * The tool behind a name as the view shows it (namespaced when left out); null when the user has no server of that name.
   * `subjectToken` (both): the caller's OAuth access token, when they came with one (ExternalTool.subjectToken).
   */
  resolve(userId: string, name: string, view?: UpstreamView, subjectToken?: string): Promise<ExternalTool | null>;
  /**
   * Calls a resolved tool, within the client's session and relay when `context` has them; every failure is an error
   * outcome but one: a caller without the connection the server needs gets a ConnectionRequiredError.
   */
  run(tool: ExternalTool, args: Record<string, unknown> | undefined, context?: UpstreamContext): Promise<ExternalToolOutcome>;
}
