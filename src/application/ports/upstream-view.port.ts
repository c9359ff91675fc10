/** A name on one upstream server, or null when the text is not in keygate's form. */
export interface UpstreamName {
  server: string;
  name: string;
}

/**
 * How one MCP endpoint shows the owner's upstream servers: which of them,
 * whether keygate's built-in tools are beside them, and how an upstream's
 * tool, resource URI and prompt are named there (and each name routed back).
 * The directories and use-cases are the same for every endpoint; only the
 * view they are handed differs. The two views are built in the use-cases
 * (`upstream-view.ts`); ports only name the shape.
 */
export interface UpstreamView {
  /** The one server shown, or null: every server of the owner. */
  readonly server: string | null;
  readonly builtIns: boolean;
  toolName(server: string, tool: string): string;
  splitTool(name: string): UpstreamName | null;
  uri(server: string, uri: string): string;
  splitUri(uri: string): UpstreamName | null;
  promptName(server: string, prompt: string): string;
  splitPrompt(name: string): UpstreamName | null;
}
