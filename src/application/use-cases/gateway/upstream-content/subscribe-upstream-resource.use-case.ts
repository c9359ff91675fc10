import { SubscriptionLimitError, UnknownResourceError, UpstreamFailedError } from '../../../../domain/errors';
import { ScopeSet } from '../../../../domain/scope';
import { ResourceSubscriptionStore } from '../../../ports/resource-subscription-store.port';
import { UpstreamReplyError } from '../../../ports/upstream-content.port';
import { allows, resourceScopes } from '../external/upstream-item-scopes';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { requireText } from './content-input';

export interface SubscribeUpstreamResourceInput {
  userId: string;
  scopes: ScopeSet;
  /** As resources/read takes it: `keygate://<server>/<upstream URI>` on /mcp, the upstream's own URI in a single server's view. */
  uri: string;
  /** The client's MCP session (internal id): a subscription lives in it, and only its stream can carry the updates. */
  clientSessionId: string;
  view?: UpstreamView;
}

/**
 * resources/subscribe: the URI is routed and scope-checked exactly as
 * resources/read does it (a URI the caller may not read is the same
 * UnknownResourceError, and is never sent upstream), recorded within the
 * session's bound, and forwarded to the upstream within keygate's session
 * with it, so the upstream's notifications/resources/updated arrive on that
 * session's stream, which listens to the upstream before the subscribe is
 * forwarded. A refused forward takes the new record back.
 */
export class SubscribeUpstreamResource {
  constructor(
    private readonly listings: UpstreamListings,
    private readonly subscriptions: ResourceSubscriptionStore,
    private readonly maxPerSession: number,
  ) {}

  async execute(input: SubscribeUpstreamResourceInput): Promise<Record<string, never>> {
    const uri = requireText(input.uri, 'uri');
    const target = await this.listings.resourceAt(input.userId, input.view ?? NAMESPACED_VIEW, uri);
    if (target === null || !allows(input.scopes, resourceScopes(target.record, target.name))) throw new UnknownResourceError(uri);
    const { record } = target;
    const outcome = await this.subscriptions.add(input.clientSessionId, record.id, target.name, this.maxPerSession);
    if (outcome === 'full') throw new SubscriptionLimitError(this.maxPerSession);
    // The session ended meanwhile: nothing is followed, and its next request is told (404).
    if (outcome === 'ended') return {};
    const session = this.listings.open(record, input.clientSessionId);
    try {
      // Connecting holds keygate's session with the upstream; its stream is then opened where the
      // client's is held before the subscribe goes, so an update sent right after the answer is not lost.
      if (offersSubscriptions(await session.capabilities())) await this.subscriptions.following(input.clientSessionId, record.id);
      if (!(await session.follow(target.name, true))) {
        throw new UpstreamFailedError(`The MCP server ${record.data.name as string} does not offer resources/subscribe`);
      }
    } catch (error) {
      if (outcome === 'added') await this.subscriptions.remove(input.clientSessionId, record.id, target.name);
      if (error instanceof UpstreamFailedError) throw error;
      if (!(error instanceof UpstreamReplyError))
        throw new UpstreamFailedError(this.listings.shown(record, 'resources/subscribe failed', error));
      // As resources/read: whatever the upstream's code, there is nothing there to follow.
      this.listings.shown(record, 'answered resources/subscribe with an error', error);
      throw new UnknownResourceError(uri);
    } finally {
      await session.close();
    }
    return {};
  }
}

function offersSubscriptions(capabilities: Record<string, unknown>): boolean {
  const resources = capabilities.resources as { subscribe?: unknown } | undefined;
  return typeof resources === 'object' && resources !== null && resources.subscribe === true;
}
