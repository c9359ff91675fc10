import { ResourceStore } from '../../../ports/resource-store.port';
import { parseFields } from '../../guards';
import { ResourcePolicy } from '../built-in/resource-policy';
import { ToolPins } from '../external/tool-pins';
import { SERVERS } from '../external/upstream-servers';
import { changerOf, McpServerCaller } from './mcp-server-caller';
import { McpServerView, shown } from './mcp-server-record';
import { decodePageCursor, encodePageCursor, parsePageLimit } from './page-cursor';

/**
 * Servers on one page. Each comes with its pins (at most MCP_UPSTREAM_MAX_TOOLS,
 * one read per server), so a page is kept short.
 */
export const DEFAULT_SERVER_PAGE = 20;
export const MAX_SERVER_PAGE = 50;

export interface ListMcpServersInput {
  caller: McpServerCaller;
  limit?: number;
  /** From the previous page's nextCursor. */
  cursor?: string;
}

export interface McpServerPage {
  servers: McpServerView[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/**
 * The owner's servers, oldest first, header values masked, a page at a time.
 * A user may hold up to MAX_MCP_SERVERS_PER_USER (10,000 at most), so pages
 * are offsets into that ordered list: a server added or removed between two
 * pages can shift one in or out of view, never more.
 */
export class ListMcpServers {
  constructor(
    private readonly store: ResourceStore,
    private readonly policy: ResourcePolicy,
    private readonly pins: ToolPins,
  ) {}

  async execute(input: ListMcpServersInput): Promise<McpServerPage> {
    const { userId } = changerOf(input.caller);
    const { limit, offset } = parseFields<{ limit: number; offset: number }>({
      limit: () => (input.limit === undefined ? DEFAULT_SERVER_PAGE : parsePageLimit(input.limit, MAX_SERVER_PAGE)),
      offset: () => (input.cursor === undefined ? 0 : decodePageCursor(input.cursor)),
    });
    const found = await this.store.list(userId, SERVERS, undefined, limit + 1, offset);
    const servers: McpServerView[] = [];
    for (const record of found.slice(0, limit)) servers.push({ record: shown(record, this.policy), pins: await this.pins.view(record.id) });
    return { servers, nextCursor: found.length > limit ? encodePageCursor(offset + limit) : null };
  }
}
