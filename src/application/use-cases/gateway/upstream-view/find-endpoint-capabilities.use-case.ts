import { LoadingCache } from '../../../ports/loading-cache.port';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { Reached, UpstreamListings } from '../external/upstream-listings';
import { UpstreamView } from '../external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES, narrowedTo, UNKNOWN_UPSTREAM_CAPABILITIES } from './endpoint-capabilities';

export interface FindEndpointCapabilitiesInput {
  /** The key's owner. */
  userId: string;
  /** The endpoint's view (FindServerView's on /mcp/servers/<name>). */
  view: UpstreamView;
  /** The OAuth access token the caller came with (secret; absent for a key), for a token_exchange server. */
  subjectToken?: string;
}

/**
 * What an endpoint declares in its initialize answer. /mcp: keygate's fixed
 * set. /mcp/servers/<name>: that set narrowed to what the upstream declared,
 * learned by one contact (bounded by the upstream timeout) and cached by
 * record id and version, so initialize contacts a server at most once per
 * cache lifetime however many sessions open. An upstream that cannot be
 * reached gets UNKNOWN_UPSTREAM_CAPABILITIES, cached as long: initialize
 * never fails, nor waits again, on an upstream that is down. A per-user
 * server is asked with the caller's own credential and cached as theirs (as
 * its listings are); without one it gets UNKNOWN_UPSTREAM_CAPABILITIES, not
 * cached, so a session opened after connecting is told the real set.
 */
export class FindEndpointCapabilities {
  constructor(
    private readonly listings: UpstreamListings,
    private readonly cache: LoadingCache<EndpointCapabilities>,
  ) {}

  async execute(input: FindEndpointCapabilitiesInput): Promise<EndpointCapabilities> {
    if (input.view.server === null) return KEYGATE_CAPABILITIES;
    const record = await this.listings.server(input.userId, input.view.server);
    // Deleted since the view was found: its endpoint serves nothing more than tools now.
    if (record === null) return UNKNOWN_UPSTREAM_CAPABILITIES;
    const caller = { userId: input.userId, subjectToken: input.subjectToken };
    const reach = await this.listings.reach(record, caller, 'not contacted');
    if (!reach.ok) return UNKNOWN_UPSTREAM_CAPABILITIES;
    // By record id and version (an edited record, another URL, is asked again), and for a per-user server the caller's connection.
    return this.cache.get(`capabilities:${reach.listKey}`, () => this.load(record, reach));
  }

  private async load(record: ResourceRecord, reach: Reached): Promise<EndpointCapabilities> {
    let session;
    try {
      session = this.listings.contact(reach);
      return narrowedTo(await session.capabilities());
    } catch (error) {
      this.listings.shown(record, 'did not tell its capabilities', error, reach.secrets);
      return UNKNOWN_UPSTREAM_CAPABILITIES;
    } finally {
      await session?.close();
    }
  }
}
