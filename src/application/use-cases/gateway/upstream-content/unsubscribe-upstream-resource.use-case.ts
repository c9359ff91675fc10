import { UpstreamReplyError } from '../../../ports/upstream-content.port';
import { ResourceSubscriptionStore } from '../../../ports/resource-subscription-store.port';
import { UpstreamListings } from '../external/upstream-listings';
import { NAMESPACED_VIEW, UpstreamView } from '../external/upstream-view';
import { requireText } from './content-input';

export interface UnsubscribeUpstreamResourceInput {
  userId: string;
  uri: string;
  clientSessionId: string;
  view?: UpstreamView;
}

/**
 * resources/unsubscribe: idempotent, `{}` whether or not the session
 * followed the URI (MCP's answer is an empty result, and a retry must not
 * fail). Only a subscription the session really held is forwarded to the
 * upstream, so an unsubscribe never sends a URI upstream that a subscribe
 * did not. The record goes first: from then on nothing is relayed for it,
 * whatever the upstream answers (its failure is logged, not returned).
 * No scope check: giving up a subscription reveals and costs nothing.
 */
export class UnsubscribeUpstreamResource {
  constructor(
    private readonly listings: UpstreamListings,
    private readonly subscriptions: ResourceSubscriptionStore,
  ) {}

  async execute(input: UnsubscribeUpstreamResourceInput): Promise<Record<string, never>> {
    const uri = requireText(input.uri, 'uri');
    const target = await this.listings.resourceAt(input.userId, input.view ?? NAMESPACED_VIEW, uri);
    if (target === null || !(await this.subscriptions.remove(input.clientSessionId, target.record.id, target.name))) return {};
    const { record } = target;
    const session = this.listings.open(record, input.clientSessionId);
    try {
      await session.follow(target.name, false);
    } catch (error) {
      this.listings.shown(
        record,
        error instanceof UpstreamReplyError ? 'answered resources/unsubscribe with an error' : 'resources/unsubscribe failed',
        error,
      );
    } finally {
      await session.close();
    }
    return {};
  }
}
