import { Actor, mayActFor } from '../../../domain/actor';
import { ApiKey } from '../../../domain/api-key';
import { NotFoundError } from '../../../domain/errors';
import { ApiKeyRepository } from '../../ports/api-key-repository.port';
import { Clock } from '../../ports/clock.port';
import { ResourceStore } from '../../ports/resource-store.port';
import { BUILT_IN_TOOLS } from '../gateway/built-in/built-in-tools';
import { changedMessage, ToolPins } from '../gateway/external/tool-pins';
import { listScopesOf } from '../gateway/external/upstream-tool-directory';
import { serversIn } from '../gateway/external/upstream-servers';
import { NAMESPACED_VIEW } from '../gateway/external/upstream-view';
import { decodePageCursor, encodePageCursor, parsePageLimit } from '../gateway/mcp-servers/page-cursor';
import { requireUuid } from '../guards';
import { keyStanding } from './key-standing';

/** The most tools one page holds, and the default. */
export const MAX_TOOLS_PAGE = 500;

export interface ListKeyToolsInput {
  actor: Actor;
  keyId: string;
  /** 1 to MAX_TOOLS_PAGE (a number, or its digits from a query string); MAX_TOOLS_PAGE when absent. */
  limit?: unknown;
  /** Where the previous page ended (its `nextCursor`). */
  cursor?: unknown;
}

/** One tool and whether the key's tools/list on /mcp shows it; `hiddenBy`: the first step that hides it. */
export interface KeyTool {
  name: string;
  /** The MCP server it comes from; null for a built-in tool. */
  server: string | null;
  requiredScopes: readonly string[];
  visible: boolean;
  hiddenBy?: 'key' | 'scope' | 'pin';
  reason?: string;
}

export interface KeyTools {
  keyId: string;
  tools: KeyTool[];
  nextCursor: string | null;
}

/**
 * Every tool the built-ins and the key owner's MCP servers offer (an upstream
 * server's tools as keygate pinned them from its listings: no server is
 * contacted), each visible as the key's tools/list on /mcp would show it or
 * not: hidden by the key's state, a scope it lacks (listing needs the
 * tool's list scopes), or a changed definition withheld. Rules are not
 * visibility: they judge each call (explain one with ExplainToolCall). In
 * pages of at most MAX_TOOLS_PAGE, built-ins first, then each server's tools
 * by name; a server holds at most MCP_UPSTREAM_MAX_TOOLS pins and a user
 * MAX_MCP_SERVERS_PER_USER servers, so the whole is bounded as well.
 */
export class ListKeyTools {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly store: ResourceStore,
    private readonly pins: ToolPins,
    private readonly clock: Clock,
  ) {}

  async execute(input: ListKeyToolsInput): Promise<KeyTools> {
    const id = requireUuid(input.keyId);
    const limit = input.limit === undefined ? MAX_TOOLS_PAGE : parsePageLimit(input.limit, MAX_TOOLS_PAGE);
    const start = input.cursor === undefined ? 0 : decodePageCursor(input.cursor);
    const key = await this.keys.findById(id);
    if (!key || !mayActFor(input.actor, key.userId)) throw new NotFoundError('API key', id);
    const judge = judgeFor(key, this.clock.now());
    const tools: KeyTool[] = BUILT_IN_TOOLS.map((tool) => judge({ name: tool.name, server: null, requiredScopes: tool.requiredScopes }));
    // Servers are read one at a time, and only until the page is full.
    for (const record of await serversIn(this.store, key.userId, NAMESPACED_VIEW)) {
      if (tools.length > start + limit) break;
      const server = String(record.data.name);
      const pins = [...(await this.pins.view(record.id))].sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
      for (const pin of pins) {
        const shown = { name: NAMESPACED_VIEW.toolName(server, pin.tool), server, requiredScopes: listScopesOf(record, pin.tool) };
        tools.push(judge(shown, pin.status === 'changed' ? changedMessage(server, pin.tool) : null));
      }
    }
    const page = tools.slice(start, start + limit);
    return { keyId: key.id, tools: page, nextCursor: tools.length > start + limit ? encodePageCursor(start + limit) : null };
  }
}

type Listed = Pick<KeyTool, 'name' | 'server' | 'requiredScopes'>;

/** Visible unless the key cannot be used, lacks a list scope, or the definition is withheld: the first of these is the reason. */
function judgeFor(key: ApiKey, now: Date): (tool: Listed, withheld?: string | null) => KeyTool {
  const standing = keyStanding(key, now);
  return (tool, withheld = null) => {
    if (standing.outcome === 'fail') return { ...tool, visible: false, hiddenBy: 'key', reason: standing.detail };
    const missing = tool.requiredScopes.filter((scope) => !key.scopes.allows(scope));
    if (missing.length > 0) return { ...tool, visible: false, hiddenBy: 'scope', reason: `The key lacks ${missing.join(', ')}` };
    if (withheld !== null) return { ...tool, visible: false, hiddenBy: 'pin', reason: withheld };
    return { ...tool, visible: true };
  };
}
