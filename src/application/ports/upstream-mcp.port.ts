/** An upstream MCP server as the owner registered it. */
export interface UpstreamServer {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/**
 * Talks MCP to upstream servers. Both methods throw when the server is refused
 * (address not allowed), unreachable or slower than the configured timeout.
 */
export interface UpstreamMcp {
  listTools(server: UpstreamServer): Promise<UpstreamTool[]>;
  /** The upstream's tools/call result, unchanged. */
  callTool(server: UpstreamServer, tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
}
