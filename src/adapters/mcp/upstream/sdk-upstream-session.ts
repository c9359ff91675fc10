import { setMaxListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CompleteResultSchema, GetPromptResultSchema, ListToolsResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ItemKind, UpstreamCompletion, UpstreamContentSession, UpstreamItem } from '../../../application/ports/upstream-content.port';
import { Agent } from 'undici';
import { UpstreamServer, UpstreamSession, UpstreamTool } from '../../../application/ports/upstream-mcp.port';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { SERVER_INFO } from '../mcp-server.factory';
import { asReplyError, listItems, LISTS } from './sdk-upstream-lists';
import { upstreamFetch } from './upstream-fetch';

export interface UpstreamLimits {
  /** Bound on the whole session: connect, list and call. */
  timeoutMs: number;
  /** Largest reply read (MCP_UPSTREAM_MAX_BYTES). */
  maxBytes: number;
  /** tools/list pages read (MCP_UPSTREAM_MAX_PAGES). */
  maxPages: number;
  maxTools: number;
}

/**
 * One contact with an upstream through the SDK client over Streamable HTTP,
 * connected on first use. A refusal (address, size, pages, tools) stops the
 * whole session and is what every later operation throws.
 */
export class SdkUpstreamSession implements UpstreamSession, UpstreamContentSession {
  private readonly stop = new AbortController();
  private readonly options: { signal: AbortSignal; timeout: number };
  private refusal: UpstreamRefusal | null = null;
  private client: Promise<Client> | null = null;

  constructor(
    private readonly server: UpstreamServer,
    private readonly agent: Agent,
    private readonly limits: UpstreamLimits,
  ) {
    const signal = AbortSignal.any([this.stop.signal, AbortSignal.timeout(limits.timeoutMs)]);
    // The SDK adds an abort listener per request and keeps it: a session makes up to maxPages + 3.
    setMaxListeners(limits.maxPages + 10, signal);
    this.options = { signal, timeout: limits.timeoutMs };
  }

  listTools(): Promise<UpstreamTool[]> {
    return this.guarded(async (client) => {
      const tools: UpstreamTool[] = [];
      let cursor: string | undefined;
      for (let pages = 1; ; pages += 1) {
        const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ListToolsResultSchema, this.options);
        for (const { name, title, description, inputSchema, outputSchema, annotations } of page.tools) {
          tools.push({ name, title, description, inputSchema: inputSchema as Record<string, unknown>, outputSchema: outputSchema as Record<string, unknown> | undefined, annotations });
        }
        if (tools.length > this.limits.maxTools) this.refuse(`over ${this.limits.maxTools} tools`, `tools/list of ${this.server.name} passed ${this.limits.maxTools} tools`);
        cursor = page.nextCursor;
        if (cursor === undefined) return tools;
        if (pages === this.limits.maxPages) {
          this.refuse(`over MCP_UPSTREAM_MAX_PAGES (${this.limits.maxPages} pages)`, `tools/list of ${this.server.name} still had a next page after ${pages}`);
        }
      }
    });
  }

  callTool(tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    // request() rather than client.callTool(): the result is relayed as it came, and the
    // client must not compile validators for output schemas an upstream declared.
    return this.guarded((client) => client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, this.options));
  }

  list(kind: ItemKind): Promise<UpstreamItem[]> {
    return this.guarded((client) => listItems(client, kind, this.server.name, this.limits, this.options, (shown, detail) => {
      const refusal = new UpstreamRefusal(`upstream ${LISTS[kind].method} ${shown}`, detail);
      this.stopWith(refusal);
      return refusal;
    }));
  }

  readResource(uri: string): Promise<Record<string, unknown>> {
    return this.replied((client) => client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, this.options));
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<Record<string, unknown>> {
    return this.replied((client) => client.request({ method: 'prompts/get', params: { name, arguments: args } }, GetPromptResultSchema, this.options));
  }

  complete(params: UpstreamCompletion): Promise<Record<string, unknown>> {
    return this.replied(async (client) => (client.getServerCapabilities()?.completions === undefined
      ? { completion: { values: [] } }
      : client.request({ method: 'completion/complete', params }, CompleteResultSchema, this.options)));
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => null);
    await client?.close().catch(() => undefined);
    this.stop.abort();
  }

  private async guarded<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await work(await (this.client ??= this.connect()));
    } catch (error) {
      // The SDK reports an aborted request as a timeout; the refusal behind it is the news.
      throw this.refusal ?? error;
    }
  }

  /** guarded, with the upstream's own JSON-RPC error answers told apart from failures to get one. */
  private async replied<T>(work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await this.guarded(work);
    } catch (error) {
      throw asReplyError(error);
    }
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version });
    const transport = new StreamableHTTPClientTransport(new URL(this.server.url), {
      requestInit: { headers: this.server.headers },
      fetch: upstreamFetch(this.agent, this.limits.maxBytes, this.options.signal, (refusal) => this.stopWith(refusal)),
      // A stateless call has nothing to resume.
      reconnectionOptions: { maxReconnectionDelay: 0, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
    await client.connect(transport, this.options);
    return client;
  }

  private refuse(shown: string, detail: string): never {
    const refusal = new UpstreamRefusal(`upstream tools/list ${shown}`, detail);
    this.stopWith(refusal);
    throw refusal;
  }

  private stopWith(refusal: UpstreamRefusal): void {
    this.refusal ??= refusal;
    this.stop.abort(refusal);
  }
}
