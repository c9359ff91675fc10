import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ScopeSet } from '../../../../domain/scope';
import { ToolDescriptor } from '../../../../domain/tool';
import { ExternalTool, ExternalToolOutcome, ExternalTools } from '../../../ports/external-tools.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { ToolListCache, ToolListing, UpstreamContext, UpstreamMcp, UpstreamSession, UpstreamTool } from '../../../ports/upstream-mcp.port';
import { failed, relayed } from '../tool-outcome';
import { ToolPins } from './tool-pins';
import { serverNamed, serversIn, shownFailure, toServer } from './upstream-servers';
import { NAMESPACED_VIEW, UpstreamView } from './upstream-view';

/** Without tool_scopes, listing an upstream tool is reading MCP server configuration, calling it is acting on it. */
const DEFAULT_LIST_SCOPES = ['mcp_servers:read'];
const DEFAULT_CALL_SCOPES = ['mcp_servers:write'];
const NONE: readonly ToolDescriptor[] = Object.freeze([]);

/**
 * The owner's upstream MCP servers (mcp_servers records) as tools named by
 * the endpoint's view (`<server>__<tool>` on /mcp): the ExternalTools port. Each server's tools/list is
 * cached by record id and version (an edited record is a new key), so one
 * request, or a batch of them, contacts a server at most once; a server whose
 * tools the caller could not see is not contacted at all. A server that fails
 * or passes a limit loses its tools from the catalog alone and its calls fail,
 * both until its listing expires; the reason is logged through `log`. A call
 * finds its server in the same per-user list the catalog reads (which the
 * store may cache), once: resolve finds it, run is handed it.
 */
export class UpstreamToolDirectory implements ExternalTools {
  constructor(
    private readonly store: ResourceStore,
    private readonly upstream: UpstreamMcp,
    private readonly lists: ToolListCache,
    private readonly log: (message: string) => void,
    private readonly pins: ToolPins,
  ) {}

  async catalog(userId: string, scopes: ScopeSet, view: UpstreamView = NAMESPACED_VIEW): Promise<readonly ToolDescriptor[]> {
    const servers = await serversIn(this.store, userId, view);
    if (servers.length === 0) return NONE;
    const listed = await Promise.all(
      servers
        .filter((record) => mayList(record, scopes))
        .map(async (record) => {
          const listing = await this.listing(record);
          return listing.ok ? listing.tools.map((tool) => describe(view, record, tool)) : [];
        }),
    );
    return listed.flat();
  }

  async resolve(userId: string, name: string, view: UpstreamView = NAMESPACED_VIEW): Promise<ExternalTool | null> {
    const target = view.splitTool(name);
    if (target === null) return null;
    const server = await serverNamed(this.store, userId, target.server);
    return server ? { server, tool: target.name, callScopes: scopesOf(server, target.name) ?? DEFAULT_CALL_SCOPES } : null;
  }

  /** Runs only tools the server's listing (cached, or read in the same contact) names. */
  async run(
    { server: record, tool }: ExternalTool,
    args: Record<string, unknown> | undefined,
    context?: UpstreamContext,
  ): Promise<ExternalToolOutcome> {
    let server;
    try {
      server = toServer(record);
    } catch (error) {
      return failed(shownFailure(this.log, record, 'tools/call failed', error));
    }
    const session = this.upstream.open(server, context);
    try {
      const listing = await this.listing(record, session);
      if (!listing.ok) return failed(listing.shown);
      const withheld = listing.withheld?.get(tool);
      if (withheld !== undefined) return failed(withheld);
      if (!listing.tools.some((listed) => listed.name === tool)) return failed(`The MCP server ${server.name} has no tool ${tool}`);
      return relayed(await session.callTool(tool, args));
    } catch (error) {
      return failed(shownFailure(this.log, record, 'tools/call failed', error));
    } finally {
      await session.close();
    }
  }

  /**
   * The record's listing; a load reuses `session` when the caller has one, so
   * listing and calling are one contact. Each load checks the tools against
   * their pins (an approval bumps the record's version, so it is a new load on
   * every replica); a store failure there fails the request and is not cached.
   */
  private listing(record: ResourceRecord, session?: UpstreamSession): Promise<ToolListing> {
    return this.lists.get(toolListKey(record), async () => {
      const loaded = await this.load(record, session);
      if (!loaded.ok) return loaded;
      const { served, withheld } = await this.pins.review(record, loaded.tools);
      return withheld.size > 0 ? { ok: true, tools: served, withheld } : { ok: true, tools: served };
    });
  }

  private async load(record: ResourceRecord, session?: UpstreamSession): Promise<ToolListing> {
    let own: UpstreamSession;
    try {
      own = session ?? this.upstream.open(toServer(record));
    } catch (error) {
      return { ok: false, shown: shownFailure(this.log, record, 'left out of tools/list', error) };
    }
    try {
      return { ok: true, tools: await own.listTools() };
    } catch (error) {
      return { ok: false, shown: shownFailure(this.log, record, 'left out of tools/list', error) };
    } finally {
      if (own !== session) await own.close();
    }
  }
}

/** Whether any tool of the server could be listed for these scopes; only then is it worth contacting. */
function mayList(record: ResourceRecord, scopes: ScopeSet): boolean {
  if (DEFAULT_LIST_SCOPES.every((scope) => scopes.allows(scope))) return true;
  const toolScopes = record.data.tool_scopes as Record<string, unknown> | undefined;
  return Object.keys(toolScopes ?? {}).some((tool) => scopesOf(record, tool)?.every((scope) => scopes.allows(scope)) ?? false);
}

function describe(view: UpstreamView, record: ResourceRecord, tool: UpstreamTool): ToolDescriptor {
  const server = record.data.name as string;
  return {
    ...tool,
    name: view.toolName(server, tool.name),
    description: tool.description ?? `${tool.name} from the MCP server ${server}`,
    requiredScopes: scopesOf(record, tool.name) ?? DEFAULT_LIST_SCOPES,
  };
}

function scopesOf(record: ResourceRecord, tool: string): string[] | null {
  const scopes = (record.data.tool_scopes as Record<string, string[]> | undefined)?.[tool];
  return Array.isArray(scopes) && scopes.length > 0 ? scopes : null;
}

/** Where a record's tool listing is cached: its id and version, so an edited record is a new entry. */
export function toolListKey(record: ResourceRecord): string {
  return `${record.id}@${record.updatedAt.toISOString()}`;
}
