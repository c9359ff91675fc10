import { AbortSource } from './abort-source';
import { ToolDefinition } from '../../domain/tool/tool-definition';
import { LoadingCache } from './loading-cache.port';

/** An upstream MCP server as the owner registered it. */
export interface UpstreamServer {
  /** The mcp_servers record's id: what keygate's sessions with it are kept under. */
  id?: string;
  /** The record's version (its updatedAt): what keygate learned of the server is kept per version. */
  version?: string;
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** A tool as an upstream's tools/list gives it: exactly what a pin covers. */
export type UpstreamTool = ToolDefinition;

/**
 * One contact with an upstream server: it connects on first use, so a session
 * that is opened but never used costs no request, and listing then calling in
 * the same session is one contact. Methods throw UpstreamRefusal when the
 * address or a limit forbids going on, and other errors when the server is
 * unreachable or slower than the configured timeout.
 */
export interface UpstreamSession {
  /** Every page of tools/list, within the configured page, tool and byte limits. */
  listTools(): Promise<UpstreamTool[]>;
  /** The upstream's tools/call result, unchanged. */
  callTool(tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Talks MCP to upstream servers. */
export interface UpstreamMcp {
  /** A contact; with `context.clientSessionId`, within keygate's session with that upstream for that client session. */
  open(server: UpstreamServer, context?: UpstreamContext): UpstreamSession;
  /** Ends keygate's session with the upstream (an HTTP DELETE), best effort within the upstream timeout; never throws. */
  terminate?(server: UpstreamServer, session: { upstreamSessionId: string; protocolVersion: string }): Promise<void>;
}

/** Whose request a contact serves: stateless when empty (a short contact, as ever). */
export interface UpstreamContext {
  /** The client's MCP session (internal id): keygate's own session with the upstream is held for it and reused. */
  clientSessionId?: string;
  /** Carries what the upstream sends during a tools/call to the client; absent, its requests to the client are refused. */
  relay?: UpstreamRelay;
  /** What a 2026-07-28 client's request passes on to the upstream, and how that upstream's input requests come back. */
  forwarded?: ForwardedRequest;
  /**
   * What a 2026-07-28 client declared in its request (no session): a
   * stateless contact with a relay declares to a 2025 upstream those of them
   * keygate relays, so the upstream may ask for them during the call.
   */
  clientCapabilities?: Record<string, unknown>;
}

/**
 * How a 2026-07-28 content request (resources/read, prompts/get) relays
 * what a 2025 upstream asks its client during it: the parked call's relay
 * and what the client declared (docs/design/mcp-2026-07-28.md, increment 8).
 */
export type ClientRelay = Pick<UpstreamContext, 'relay' | 'clientCapabilities'>;

/**
 * What of a 2026-07-28 client's request reaches the upstream: its W3C trace
 * context (any upstream) and, toward an upstream that speaks 2026-07-28
 * itself, its declared client capabilities, its logLevel and the retry of an
 * input-required round. With `input`, an upstream's input_required answer is
 * returned as it came (resultType input_required), for the edge to seal and
 * pass to the client; the session fills in `answeredBy` and, when the
 * upstream refused for a capability the client lacks, `refused`.
 */
export interface ForwardedRequest {
  /** traceparent, tracestate and baggage as the client sent them in _meta. */
  trace: Record<string, string>;
  input?: InputPassthrough;
}

export interface InputPassthrough {
  /** What the client declared in its envelope: declared to the upstream as keygate's own. */
  clientCapabilities: Record<string, unknown>;
  /** The client's io.modelcontextprotocol/logLevel; absent, the upstream is sent none (and sends no log messages). */
  logLevel?: string;
  /** A retry: the client's answers, and the upstream's own requestState and record the sealed state named. */
  /** Without `server`, answers the client sent with no state (to whatever the call reaches now, as its arguments go). */
  resume?: { inputResponses: Record<string, unknown>; requestState?: string; server?: { id: string; version: string } };
  /** Set by the session: the record whose upstream answered input_required (its id and version go into the sealed state). */
  answeredBy?: { id: string; version: string };
  /** Set by the session: the retry named another record (edited or replaced since), so nothing was sent. */
  stale?: boolean;
  /** Set by the session: the upstream refused for a capability the client lacks (-32021), relayed as that error. */
  refused?: { code: number; message: string; data?: unknown };
}

/** The client's answer to a request relayed to it: its result, or an error for the upstream. */
export type RelayAnswer = { result: Record<string, unknown> } | { error: { code: number; message: string } };

/**
 * The client end of one tools/call while its upstream works on it: progress
 * (reported under the client's own progress token), logging messages, and the
 * upstream's requests to the client (sampling, elicitation, roots) with the
 * client's answers. `signal` aborts when the client cancels the call.
 */
export interface UpstreamRelay {
  readonly signal: AbortSource;
  /** Whether the client asked for progress (sent a progressToken). */
  readonly wantsProgress: boolean;
  progress(params: { progress: number; total?: number; message?: string }): Promise<void>;
  /** A notification (notifications/message) from the upstream, for the client. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** A request of the upstream to the client; never throws: refusals and timeouts are error answers. */
  request(method: string, params: Record<string, unknown>): Promise<RelayAnswer>;
}

/**
 * What one load of an upstream's tools/list gave: the tools it may offer and
 * why each other one it served is withheld (tool name → what a call is told),
 * or why it has none to offer.
 */
export type ToolListing = { ok: true; tools: UpstreamTool[]; withheld?: ReadonlyMap<string, string> } | { ok: false; shown: string };

/** Tool listings by key (a record's id and version); forgotten when the upstream announces a change. */
export type ToolListCache = LoadingCache<ToolListing>;
