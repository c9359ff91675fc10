import { SessionIdlePolicy } from '../../../../domain/mcp-session';
import { Clock } from '../../../ports/clock.port';
import { McpSessionRepository } from '../../../ports/mcp-session-repository.port';
import { ResourceStore } from '../../../ports/resource-store.port';
import { ResourceSubscriptionStore } from '../../../ports/resource-subscription-store.port';
import { SessionBus } from '../../../ports/session-bus.port';
import { ToolListCache } from '../../../ports/upstream-mcp.port';
import { MAX_URI_CHARS } from '../upstream-content/content-input';
import { allows, resourceScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { SERVERS } from '../external/upstream-servers';
import { toolListKey } from '../external/upstream-tool-directory';
import { UpstreamView } from '../external/upstream-view';
import { AnnounceToolChanges } from './announce-tool-changes.use-case';

export interface RelayUpstreamNotificationInput {
  /** The client session whose stream this replica holds (internal id), its key and owner. */
  clientSessionId: string;
  keyId: string;
  userId: string;
  /** The mcp_servers record of the upstream that sent it. */
  serverId: string;
  /** The endpoint the client's stream was opened on: how a URI is named to it. */
  view: UpstreamView;
  /** What the upstream sent on its own GET stream, parsed. */
  message: Record<string, unknown>;
}

/** What became of one upstream message. */
export type RelayOutcome = 'relayed' | 'refreshed' | 'dropped';

const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
} as const;

/**
 * A message an upstream sent outside any call, on keygate's session with it
 * for one client session:
 * - `notifications/resources/updated` is relayed (under the URI the client's
 *   endpoint uses) only while the session still follows that URI and the
 *   key's scopes, as they are now, still allow reading it;
 * - an upstream's `list_changed` drops that server's cached lists here;
 *   for tools, the digest comparison then tells every session of the owner
 *   whose visible tools really changed; for resources and prompts (no
 *   digest), this session is told.
 * Anything else (requests, logging outside a call) is dropped.
 */
export class RelayUpstreamNotification {
  constructor(
    private readonly deps: {
      subscriptions: ResourceSubscriptionStore;
      sessions: McpSessionRepository;
      records: ResourceStore;
      bus: SessionBus;
      toolLists: ToolListCache;
      listings: UpstreamListings;
      announce: AnnounceToolChanges;
      clock: Clock;
      idle: SessionIdlePolicy;
    },
  ) {}

  async execute(input: RelayUpstreamNotificationInput): Promise<RelayOutcome> {
    const { message } = input;
    if ('id' in message) return 'dropped';
    switch (message.method) {
      case 'notifications/resources/updated':
        return this.updated(input);
      case LIST_CHANGED.tools:
      case LIST_CHANGED.resources:
      case LIST_CHANGED.prompts:
        return this.listChanged(input, message.method);
      default:
        return 'dropped';
    }
  }

  private async updated(input: RelayUpstreamNotificationInput): Promise<RelayOutcome> {
    const uri = (input.message.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string' || uri === '' || uri.length > MAX_URI_CHARS) return 'dropped';
    const { subscriptions, records, sessions, bus, clock, idle } = this.deps;
    if (!(await subscriptions.has(input.clientSessionId, input.serverId, uri))) return 'dropped';
    const record = await records.find(input.userId, SERVERS, input.serverId);
    if (record === null) return 'dropped';
    // The key's scopes as they are now (an edit since the subscribe counts); a revoked key has none.
    const [key] = await sessions.keysWithLiveSessions({ keyId: input.keyId }, idle.idleCutoff(clock.now()));
    if (key === undefined || !allows(key.scopes, resourceScopes(record, uri))) return 'dropped';
    const relayed = {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: input.view.uri(record.data.name as string, uri) },
    };
    return (await bus.publishToStream(input.clientSessionId, relayed)) ? 'relayed' : 'dropped';
  }

  private async listChanged(input: RelayUpstreamNotificationInput, method: string): Promise<RelayOutcome> {
    const record = await this.deps.records.find(input.userId, SERVERS, input.serverId);
    if (record === null) return 'dropped';
    if (method === LIST_CHANGED.tools) {
      this.deps.toolLists.forget?.(toolListKey(record));
      await this.deps.announce.execute({ userId: input.userId });
      return 'refreshed';
    }
    this.deps.listings.forget(record);
    await this.deps.bus.publishToStream(input.clientSessionId, { jsonrpc: '2.0', method });
    return 'refreshed';
  }
}
