import { ResourceRecord, topLevel } from '../../../domain/resource/resource-record';
import { ToolDescriptor } from '../../../domain/tool';
import { ResourceStore } from '../../ports/resource-store.port';
import { UpstreamMcp, UpstreamServer } from '../../ports/upstream-mcp.port';
import { failed, relayed, ToolOutcome } from '../call-tool/tool-outcome';

const SEPARATOR = '__';
/** Without tool_scopes, listing an upstream tool is reading MCP server configuration, calling it is acting on it. */
const DEFAULT_LIST_SCOPES = ['mcp_servers:read'];
const DEFAULT_CALL_SCOPES = ['mcp_servers:write'];

/**
 * The owner's upstream MCP servers (mcp_servers records) as namespaced tools
 * `<server>__<tool>`. Feeds ListTools (catalog), AuthorizeToolCall
 * (callScopes) and CallTool (run). A server that fails is left out of the
 * catalog alone, and reported through `log`.
 */
export class UpstreamToolDirectory {
  constructor(
    private readonly store: ResourceStore,
    private readonly upstream: UpstreamMcp,
    private readonly log: (message: string) => void,
  ) {}

  readonly catalog = async (userId: string): Promise<ToolDescriptor[]> => {
    const servers = await this.store.list(userId, topLevel('mcp_servers'));
    const listed = await Promise.all(servers.map(async (record) => {
      const server = toServer(record);
      try {
        const tools = await this.upstream.listTools(server);
        return tools.map((tool): ToolDescriptor => ({
          ...tool,
          name: `${server.name}${SEPARATOR}${tool.name}`,
          description: tool.description ?? `${tool.name} from the MCP server ${server.name}`,
          requiredScopes: scopesOf(record, tool.name) ?? DEFAULT_LIST_SCOPES,
        }));
      } catch (error) {
        this.log(`MCP server ${server.name} (${record.id}) left out of tools/list: ${(error as Error)?.message ?? error}`);
        return [];
      }
    }));
    return listed.flat();
  };

  /** Null when the caller has no server of that namespace. */
  readonly callScopes = async (userId: string, name: string): Promise<string[] | null> => {
    const found = await this.find(userId, name);
    return found ? scopesOf(found.record, found.tool) ?? DEFAULT_CALL_SCOPES : null;
  };

  readonly run = async (userId: string, name: string, args: Record<string, unknown> | undefined): Promise<ToolOutcome | null> => {
    const found = await this.find(userId, name);
    if (!found) return null;
    try {
      return relayed(await this.upstream.callTool(toServer(found.record), found.tool, args));
    } catch (error) {
      return failed(`The MCP server ${found.record.data.name} did not answer: ${(error as Error)?.message ?? error}`);
    }
  };

  private async find(userId: string, name: string): Promise<{ record: ResourceRecord; tool: string } | null> {
    const at = name.indexOf(SEPARATOR);
    if (at <= 0) return null;
    const [server, tool] = [name.slice(0, at), name.slice(at + SEPARATOR.length)];
    if (tool === '') return null;
    const [record] = await this.store.list(userId, topLevel('mcp_servers'), { where: { name: server } });
    return record ? { record, tool } : null;
  }
}

function toServer(record: ResourceRecord): UpstreamServer {
  const data = record.data as { name: string; url: string; headers?: Record<string, string> };
  return { name: data.name, url: data.url, headers: data.headers ?? {} };
}

function scopesOf(record: ResourceRecord, tool: string): string[] | null {
  const scopes = (record.data.tool_scopes as Record<string, string[]> | undefined)?.[tool];
  return Array.isArray(scopes) && scopes.length > 0 ? scopes : null;
}
