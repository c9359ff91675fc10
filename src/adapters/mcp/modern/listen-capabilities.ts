import { UpstreamView } from '../../../application/use-cases/gateway/external/upstream-view';
import { UpstreamListings } from '../../../application/use-cases/gateway/external/upstream-listings';
import { reachableAsRegistered, toServer } from '../../../application/use-cases/gateway/external/upstream-servers';
import {
  EndpointCapabilities,
  KEYGATE_CAPABILITIES,
  narrowedTo,
  UNKNOWN_UPSTREAM_CAPABILITIES,
} from '../../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { ProfileSource } from './listen-upstream';

/**
 * What a 2026 endpoint declares, and so what its subscriptions/listen
 * honours: /mcp keygate's whole set (tool changes are keygate's own, the
 * rest comes from each upstream); /mcp/servers/<name> that set narrowed to
 * what the upstream declared in its own revision (its profile, learned once
 * per record version), whichever revision it speaks, since listen reaches a
 * 2026 upstream through its listen and a 2025 one through a held session.
 */
export class ListenCapabilities {
  constructor(
    private readonly listings: UpstreamListings,
    private readonly profiles: ProfileSource,
  ) {}

  async execute(input: { userId: string; view: UpstreamView }): Promise<EndpointCapabilities> {
    if (input.view.server === null) return KEYGATE_CAPABILITIES;
    const record = await this.listings.server(input.userId, input.view.server);
    if (record === null || !reachableAsRegistered(record)) return UNKNOWN_UPSTREAM_CAPABILITIES;
    const profile = await this.profiles(toServer(record));
    return profile.era === 'unknown' ? UNKNOWN_UPSTREAM_CAPABILITIES : narrowedTo(profile.capabilities);
  }
}
