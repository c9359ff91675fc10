import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UpstreamMcp, UpstreamServer, UpstreamTool } from '../../../application/ports/upstream-mcp.port';
import { SERVER_INFO } from '../mcp-server.factory';
import { UpstreamAddressGuard } from './upstream-address-guard';

/**
 * UpstreamMcp with the SDK client over Streamable HTTP: one short connection
 * per operation (stateless, like us), every HTTP request address-checked and
 * the whole operation bounded by the timeout.
 */
export class SdkUpstreamMcp implements UpstreamMcp {
  constructor(
    private readonly guard: UpstreamAddressGuard,
    private readonly timeoutMs: number,
  ) {}

  async listTools(server: UpstreamServer): Promise<UpstreamTool[]> {
    return this.session(server, async (client, options) => {
      const tools: UpstreamTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, options);
        tools.push(...page.tools.map(({ name, title, description, inputSchema, annotations }) =>
          ({ name, title, description, inputSchema: inputSchema as Record<string, unknown>, annotations })));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    });
  }

  async callTool(server: UpstreamServer, tool: string, args: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    return this.session(server, async (client, options) =>
      (await client.callTool({ name: tool, arguments: args }, undefined, options)) as Record<string, unknown>);
  }

  private async session<T>(server: UpstreamServer, work: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const options = { signal, timeout: this.timeoutMs };
    const guardedFetch = async (input: string | URL, init?: RequestInit) => {
      await this.guard.check(new URL(input));
      return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    };
    const client = new Client({ name: SERVER_INFO.name, version: SERVER_INFO.version });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
      fetch: guardedFetch,
      // A stateless call has nothing to resume.
      reconnectionOptions: { maxReconnectionDelay: 0, initialReconnectionDelay: 0, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
    try {
      await client.connect(transport, options);
      return await work(client, options);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}
