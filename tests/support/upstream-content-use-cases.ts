import { upstreamContentUseCases } from '../../src/adapters/mcp/upstream-content-handlers';
import { ItemListCache, ItemListing } from '../../src/application/ports/upstream-content.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { UpstreamListings } from '../../src/application/use-cases/tools/external/upstream-listings';
import { FakeUpstreamContent } from '../fakes/fake-upstream-content';

/** ItemListCache in memory, unbounded and never expiring, sharing a load in flight as the LRU one does. */
export class MapItemListCache implements ItemListCache {
  readonly entries = new Map<string, Promise<ItemListing>>();

  get(key: string, load: () => Promise<ItemListing>): Promise<ItemListing> {
    if (!this.entries.has(key)) this.entries.set(key, load());
    return this.entries.get(key)!;
  }
}

/** The six use-cases over one UpstreamListings with an in-memory cache and a fake upstream. */
export function makeUpstreamContent(store: ResourceStore, upstream = new FakeUpstreamContent(), logged: string[] = []) {
  const listings = new UpstreamListings(store, upstream, new MapItemListCache(), (message) => logged.push(message));
  return { useCases: upstreamContentUseCases(listings), upstream, logged };
}
