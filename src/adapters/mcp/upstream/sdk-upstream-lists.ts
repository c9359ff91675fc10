import { Client, ProtocolError, ServerCapabilities } from '@modelcontextprotocol/client';
import { ItemKind, UpstreamItem, UpstreamReplyError } from '../../../application/ports/upstream-content.port';
import { UpstreamTool } from '../../../application/ports/upstream-mcp.port';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';

/** Each federated list: its method (the SDK checks its result by it), the field holding its items, and the capability that offers it. */
export const LISTS = {
  resources: { method: 'resources/list', capability: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', capability: 'resources' },
  prompts: { method: 'prompts/list', capability: 'prompts' },
} as const satisfies Record<ItemKind, { method: string; capability: keyof ServerCapabilities }>;

/**
 * Every page of one list, within the limits tools/list keeps: at most
 * maxPages pages and maxTools items (per list), each reply within maxBytes.
 * A server that does not declare the capability has none, unasked.
 */
export async function listItems(
  client: Client,
  kind: ItemKind,
  server: string,
  limits: { maxPages: number; maxTools: number },
  options: { signal: AbortSignal; timeout: number },
  refuse: (shown: string, detail: string) => UpstreamRefusal,
): Promise<UpstreamItem[]> {
  return listPages(client.getServerCapabilities() ?? {}, kind, server, limits, refuse, (method, params) =>
    client.request({ method: method as (typeof LISTS)[ItemKind]['method'], params }, options),
  );
}

/** listItems over any client: `ask` asks the upstream for one page; `capabilities` are what it declared. */
export async function listPages(
  capabilities: Record<string, unknown>,
  kind: ItemKind,
  server: string,
  limits: { maxPages: number; maxTools: number },
  refuse: (shown: string, detail: string) => UpstreamRefusal,
  ask: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<UpstreamItem[]> {
  const { method, capability } = LISTS[kind];
  if (capabilities[capability] === undefined) return [];
  const items: UpstreamItem[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages += 1) {
    const page = await ask(method, cursor === undefined ? {} : { cursor });
    items.push(...(page[kind] as UpstreamItem[]));
    if (items.length > limits.maxTools)
      throw refuse(`over ${limits.maxTools} items`, `${method} of ${server} passed ${limits.maxTools} items`);
    cursor = page.nextCursor as string | undefined;
    if (cursor === undefined) return items;
    if (pages === limits.maxPages)
      throw refuse(`over MCP_UPSTREAM_MAX_PAGES (${limits.maxPages} pages)`, `${method} of ${server} still had a next page after ${pages}`);
  }
}

/** A tool as either SDK's tools/list page gives it. */
interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: object;
}

/**
 * Every page of an upstream's tools/list, with either SDK's client (`ask`
 * asks for one page): at most maxPages pages and maxTools tools.
 */
export async function listToolPages(
  server: string,
  limits: { maxPages: number; maxTools: number },
  refuse: (shown: string, detail: string) => UpstreamRefusal,
  ask: (params: Record<string, unknown>) => Promise<{ tools: ListedTool[]; nextCursor?: string }>,
): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages += 1) {
    const page = await ask(cursor === undefined ? {} : { cursor });
    for (const { name, title, description, inputSchema, outputSchema, annotations } of page.tools) {
      tools.push({
        name,
        title,
        description,
        inputSchema: inputSchema as Record<string, unknown>,
        outputSchema: outputSchema as Record<string, unknown> | undefined,
        annotations: annotations as Record<string, unknown> | undefined,
      });
    }
    if (tools.length > limits.maxTools)
      throw refuse(`over ${limits.maxTools} tools`, `tools/list of ${server} passed ${limits.maxTools} tools`);
    cursor = page.nextCursor;
    if (cursor === undefined) return tools;
    if (pages === limits.maxPages)
      throw refuse(
        `over MCP_UPSTREAM_MAX_PAGES (${limits.maxPages} pages)`,
        `tools/list of ${server} still had a next page after ${pages}`,
      );
  }
}

/**
 * An error the upstream answered (a JSON-RPC error reply, a ProtocolError) as
 * UpstreamReplyError; the SDK's own errors (a timeout, a closed connection, an
 * HTTP status: SdkError) and everything else as they are.
 */
export function asReplyError(error: unknown): unknown {
  return error instanceof ProtocolError ? new UpstreamReplyError(error.code, error.message) : error;
}
