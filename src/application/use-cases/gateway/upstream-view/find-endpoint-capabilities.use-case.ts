import { UpstreamFailedError } from '../../../../domain/errors';
import { LoadingCache } from '../../../ports/loading-cache.port';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { UpstreamListings } from '../external/upstream-listings';
import { UpstreamView } from '../external/upstream-view';
import { EndpointCapabilities, KEYGATE_CAPABILITIES, narrowedTo, UNKNOWN_UPSTREAM_CAPABILITIES } from './endpoint-capabilities';

export interface FindEndpointCapabilitiesInput {
  /** The key's owner. */
  userId: string;
  /** The endpoint's view (FindServerView's on /mcp/servers/<name>). */
  view: UpstreamView;
}

/**
 * What an endpoint declares in its initialize answer. /mcp: keygate's fixed
 * set. /mcp/servers/<name>: that set narrowed to what the upstream declared,
 * learned by one contact (bounded by the upstream timeout) and cached by
 * record id and version, so initialize contacts a server at most once per
 * cache lifetime however many sessions open. An upstream that cannot be
 * reached gets UNKNOWN_UPSTREAM_CAPABILITIES, cached as long: initialize
 * never fails, nor waits again, on an upstream that is down.
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
    return this.cache.get(capabilitiesKey(record), () => this.load(record));
  }

  private async load(record: ResourceRecord): Promise<EndpointCapabilities> {
    let session;
    try {
      session = this.listings.open(record);
      return narrowedTo(await session.capabilities());
    } catch (error) {
      // A server not contacted at all (its header values did not decrypt) was logged by open.
      if (!(error instanceof UpstreamFailedError)) this.listings.shown(record, 'did not tell its capabilities', error);
      return UNKNOWN_UPSTREAM_CAPABILITIES;
    } finally {
      await session?.close();
    }
  }
}

/** Where a record's capabilities are cached: id and version, so an edited record (another URL) is asked again. */
export function capabilitiesKey(record: ResourceRecord): string {
  return `capabilities:${record.id}@${record.updatedAt.toISOString()}`;
}
