import { ToolDefinition } from '../../domain/tool/tool-definition';

/** An upstream MCP server as the owner registered it. */
export interface UpstreamServer {
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
  open(server: UpstreamServer): UpstreamSession;
}

/**
 * What one load of an upstream's tools/list gave: the tools it may offer and
 * why each other one it served is withheld (tool name → what a call is told),
 * or why it has none to offer.
 */
export type ToolListing =
  | { ok: true; tools: UpstreamTool[]; withheld?: ReadonlyMap<string, string> }
  | { ok: false; shown: string };

/**
 * Tool listings by key (a record's id and version), bounded and expiring. A
 * key that is missing is loaded once, however many ask for it at the same time.
 */
export interface ToolListCache {
  get(key: string, load: () => Promise<ToolListing>): Promise<ToolListing>;
}
