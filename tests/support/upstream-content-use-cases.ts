import { upstreamContentUseCases } from '../../src/adapters/mcp/upstream-content-handlers';
import { ItemListing } from '../../src/application/ports/upstream-content.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { LoadingCache } from '../../src/application/ports/loading-cache.port';
import { UpstreamCredentials } from '../../src/application/use-cases/gateway/external/upstream-credentials';
import { UpstreamListings } from '../../src/application/use-cases/gateway/external/upstream-listings';
import { EndpointCapabilities } from '../../src/application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { FindEndpointCapabilities } from '../../src/application/use-cases/gateway/upstream-view/find-endpoint-capabilities.use-case';
import { FakeUpstreamContent } from '../fakes/fake-upstream-content';
import { InMemoryResourceSubscriptions } from '../fakes/in-memory-resource-subscriptions';

/** LoadingCache in memory, unbounded and never expiring, sharing a load in flight. */
export class MapLoadingCache<T> implements LoadingCache<T> {
  readonly entries = new Map<string, Promise<T>>();

  get(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.entries.has(key)) this.entries.set(key, load());
    return this.entries.get(key)!;
  }
}

/**
 * The use-cases over one UpstreamListings with an in-memory cache, a fake upstream and in-memory subscriptions (at
 * most `maxSubscriptions` a session); `credentials` is how per-user servers are reached (none: never).
 */
export function makeUpstreamContent(
  store: ResourceStore,
  upstream = new FakeUpstreamContent(),
  logged: string[] = [],
  maxSubscriptions = 3,
  credentials?: UpstreamCredentials,
) {
  const listings = new UpstreamListings(
    store,
    upstream,
    new MapLoadingCache<ItemListing>(),
    (message) => logged.push(message),
    credentials,
  );
  const subscriptions = new InMemoryResourceSubscriptions();
  const capabilities = new FindEndpointCapabilities(listings, new MapLoadingCache<EndpointCapabilities>());
  return {
    useCases: upstreamContentUseCases(listings, { store: subscriptions, maxPerSession: maxSubscriptions }),
    upstream,
    logged,
    subscriptions,
    capabilities,
  };
}
