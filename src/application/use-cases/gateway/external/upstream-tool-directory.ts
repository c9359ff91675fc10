import { ConnectionRequiredError } from '../../../../domain/errors';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { ScopeSet } from '../../../../domain/scope';
import { ToolDescriptor } from '../../../../domain/tool';
import { ExternalTool, ExternalToolOutcome, ExternalTools } from '../../../ports/external-tools.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { ToolListCache, ToolListing, UpstreamContext, UpstreamMcp, UpstreamSession, UpstreamTool } from '../../../ports/upstream-mcp.port';
import { failed, refusedCall, relayed } from '../tool-outcome';
import { ToolPins } from './tool-pins';
import { CallerReach, listKeyOf, UpstreamCredentials } from './upstream-credentials';
import { credentialsOf, serverNamed, serversIn, shownFailure } from './upstream-servers';
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
 * store may cache), once: resolve finds it, run is handed it. Every contact
 * carries the credential of the user the request is for (UpstreamCredentials):
 * a server that takes each user's own is listed and called only for a user
 * who has one, with a listing of their own. A user who could connect to it
 * but has not is shown its approved definitions as pinned (ToolPins), with
 * no upstream request, so that a client sees the tools and its call asks
 * them to connect.
 */
export class UpstreamToolDirectory implements ExternalTools {
  constructor(
    private readonly store: ResourceStore,
    private readonly upstream: UpstreamMcp,
    private readonly lists: ToolListCache,
    private readonly log: (message: string) => void,
    private readonly pins: ToolPins,
    /** Without connections, a server with per-user auth is never contacted. */
    private readonly credentials: UpstreamCredentials = new UpstreamCredentials(null, (id) => `/console/#/servers/${id}/connect`),
  ) {}

  async catalog(
    userId: string,
    scopes: ScopeSet,
    view: UpstreamView = NAMESPACED_VIEW,
    subjectToken?: string,
  ): Promise<readonly ToolDescriptor[]> {
    const servers = await serversIn(this.store, userId, view);
    if (servers.length === 0) return NONE;
    const listed = await Promise.all(
      servers
        .filter((record) => mayList(record, scopes))
        .map(async (record) => {
          const reach = await this.reach(record, userId, 'left out of tools/list', subjectToken);
          // No credential of this user's: nobody else's is used to list it. When they could connect, what was approved is shown.
          if (!reach.ok)
            return reach.connectUrl === undefined ? [] : (await this.pinned(record)).map((tool) => describe(view, record, tool));
          const listing = await this.listing(record, reach);
          return listing.ok ? listing.tools.map((tool) => describe(view, record, tool)) : [];
        }),
    );
    return listed.flat();
  }

  async resolve(userId: string, name: string, view: UpstreamView = NAMESPACED_VIEW, subjectToken?: string): Promise<ExternalTool | null> {
    const target = view.splitTool(name);
    if (target === null) return null;
    const server = await serverNamed(this.store, userId, target.server);
    if (server === null) return null;
    const callScopes = scopesOf(server, target.name) ?? DEFAULT_CALL_SCOPES;
    return { server, callerId: userId, ...(subjectToken !== undefined && { subjectToken }), tool: target.name, callScopes };
  }

  /**
   * Runs only tools the server's listing (cached, or read in the same contact)
   * names. A caller without the connection the server needs gets a
   * ConnectionRequiredError (nothing is sent upstream), for the edge to ask them to connect.
   */
  async run(
    { server: record, callerId, subjectToken, tool }: ExternalTool,
    args: Record<string, unknown> | undefined,
    context?: UpstreamContext,
  ): Promise<ExternalToolOutcome> {
    const reach = await this.reach(record, callerId, 'tools/call failed', subjectToken);
    if (!reach.ok && reach.connectUrl !== undefined) throw new ConnectionRequiredError(String(record.data.name), reach.connectUrl);
    if (!reach.ok) return failed(reach.shown);
    const { server, secrets } = reach;
    const session = this.upstream.open(server, context);
    try {
      const listing = await this.listing(record, reach, session);
      if (!listing.ok) return failed(listing.shown);
      const withheld = listing.withheld?.get(tool);
      if (withheld !== undefined) return refusedCall(withheld, 'withheld');
      if (!listing.tools.some((listed) => listed.name === tool))
        return refusedCall(`The MCP server ${server.name} has no tool ${tool}`, 'unknown');
      return relayed(await session.callTool(tool, args));
    } catch (error) {
      return failed(shownFailure(this.log, record, 'tools/call failed', error, secrets));
    } finally {
      await session.close();
    }
  }

  /** How `userId` reaches the record's server; a record that cannot be used at all (its secrets did not decrypt) is a failure shown as such. */
  private async reach(record: ResourceRecord, userId: string, what: string, subjectToken?: string): Promise<CallerReach> {
    try {
      return await this.credentials.reach(record, userId, subjectToken);
    } catch (error) {
      return { ok: false, shown: shownFailure(this.log, record, what, error) };
    }
  }

  /**
   * The record's listing; a load reuses `session` when the caller has one, so
   * listing and calling are one contact. Each load checks the tools against
   * their pins (an approval bumps the record's version, so it is a new load on
   * every replica); a store failure there fails the request and is not cached.
   */
  private listing(record: ResourceRecord, reach: Extract<CallerReach, { ok: true }>, session?: UpstreamSession): Promise<ToolListing> {
    return this.lists.get(reach.listKey, async () => {
      const loaded = await this.load(record, reach, session);
      if (!loaded.ok) return loaded;
      const { served, withheld } = await this.pins.review(record, loaded.tools, credentialsOf(record, reach.secrets));
      // The review may have pinned or kept definitions: this replica shows them at once (others when theirs expires).
      this.lists.forget?.(pinnedListKey(record));
      return withheld.size > 0 ? { ok: true, tools: served, withheld } : { ok: true, tools: served };
    });
  }

  /** The record's approved definitions as pinned, cached like a listing under the record's version (an approval is a new one). */
  private async pinned(record: ResourceRecord): Promise<UpstreamTool[]> {
    const listing = await this.lists.get(pinnedListKey(record), async () => ({ ok: true, tools: await this.pins.approvedTools(record) }));
    return listing.ok ? listing.tools : [];
  }

  private async load(record: ResourceRecord, reach: Extract<CallerReach, { ok: true }>, session?: UpstreamSession): Promise<ToolListing> {
    const own = session ?? this.upstream.open(reach.server);
    try {
      return { ok: true, tools: await own.listTools() };
    } catch (error) {
      return { ok: false, shown: shownFailure(this.log, record, 'left out of tools/list', error, reach.secrets) };
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
    requiredScopes: listScopesOf(record, tool.name),
  };
}

/** The scopes a tool of the record needs to be listed: its tool_scopes, else reading MCP server configuration. */
export function listScopesOf(record: ResourceRecord, tool: string): readonly string[] {
  return scopesOf(record, tool) ?? DEFAULT_LIST_SCOPES;
}

function scopesOf(record: ResourceRecord, tool: string): string[] | null {
  const scopes = (record.data.tool_scopes as Record<string, string[]> | undefined)?.[tool];
  return Array.isArray(scopes) && scopes.length > 0 ? scopes : null;
}

/** Where a record's approved definitions are cached, for the users who have no connection to it. */
function pinnedListKey(record: ResourceRecord): string {
  return `${listKeyOf(record)} pinned`;
}

/** Where a record's shared tool listing is cached (a static server's): its id and version, so an edited record is a new entry. */
export function toolListKey(record: ResourceRecord): string {
  return listKeyOf(record);
}
