import { UpstreamContentUseCases } from '../../src/adapters/mcp/upstream-content-handlers';
import { ItemListCache, ItemListing } from '../../src/application/ports/upstream-content.port';
import { ResourceStore } from '../../src/application/ports/resource-store.port';
import { UpstreamListings } from '../../src/application/use-cases/tools/external/upstream-listings';
import { CompleteUpstreamArgument } from '../../src/application/use-cases/upstream-content/complete-upstream-argument.use-case';
import { GetUpstreamPrompt } from '../../src/application/use-cases/upstream-content/get-upstream-prompt.use-case';
import { ListUpstreamPrompts } from '../../src/application/use-cases/upstream-content/list-upstream-prompts.use-case';
import { ListUpstreamResourceTemplates } from '../../src/application/use-cases/upstream-content/list-upstream-resource-templates.use-case';
import { ListUpstreamResources } from '../../src/application/use-cases/upstream-content/list-upstream-resources.use-case';
import { ReadUpstreamResource } from '../../src/application/use-cases/upstream-content/read-upstream-resource.use-case';
import { FakeUpstreamContent } from '../fakes/fake-upstream-content';

/** ItemListCache in memory, unbounded and never expiring, sharing a load in flight as the LRU one does. */
export class MapItemListCache implements ItemListCache {
  readonly entries = new Map<string, Promise<ItemListing>>();

  get(key: string, load: () => Promise<ItemListing>): Promise<ItemListing> {
    if (!this.entries.has(key)) this.entries.set(key, load());
    return this.entries.get(key)!;
  }
}

/** The six use-cases over one UpstreamListings, as mcp-content.bindings.ts wires them. */
export function makeUpstreamContent(store: ResourceStore, upstream = new FakeUpstreamContent(), logged: string[] = []) {
  const listings = new UpstreamListings(store, upstream, new MapItemListCache(), (message) => logged.push(message));
  const useCases: UpstreamContentUseCases = {
    listResources: new ListUpstreamResources(listings),
    listResourceTemplates: new ListUpstreamResourceTemplates(listings),
    readResource: new ReadUpstreamResource(listings),
    listPrompts: new ListUpstreamPrompts(listings),
    getPrompt: new GetUpstreamPrompt(listings),
    complete: new CompleteUpstreamArgument(listings),
  };
  return { useCases, upstream, logged };
}
