import { Container } from 'inversify';
import { ResourceStore } from '../../application/ports/resource-store.port';
import { ResourceSubscriptionStore } from '../../application/ports/resource-subscription-store.port';
import { ItemListCache, ItemListing } from '../../application/ports/upstream-content.port';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { UpstreamContentUseCases, upstreamContentUseCases } from '../../adapters/mcp/upstream-content-handlers';
import { LruLoadingCache } from '../../adapters/mcp/upstream/lru-loading-cache';
import { SdkUpstreamMcp } from '../../adapters/mcp/upstream/sdk-upstream-mcp';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/**
 * Bounds of the upstream resource, template and prompt list cache: as the
 * tool list cache's (mcp.bindings.ts), a list's JSON size bounds the heap.
 */
const ITEM_LIST_CACHE = { maxEntries: 10_000, maxChars: 16 * 1024 * 1024 };

/** The upstream servers' resources, prompts and completion on /mcp: their listings, use-cases, and the object McpServerFactory takes. */
export function bindMcpContent(c: Container): void {
  c.bind(UpstreamListings).toResolvedValue(
    (store: ResourceStore, upstream: SdkUpstreamMcp, config: Config, log: (message: string) => void) => {
      const cache: ItemListCache = new LruLoadingCache<ItemListing>({ ...ITEM_LIST_CACHE, ttlMs: config.mcp.upstreamListTtlSeconds * 1000 });
      return new UpstreamListings(store, upstream, cache, log);
    },
    [TOKENS.ResourceStore, SdkUpstreamMcp, TOKENS.Config, TOKENS.McpLog],
  );
  c.bind<UpstreamContentUseCases>(TOKENS.UpstreamContentUseCases).toResolvedValue(
    (listings: UpstreamListings, store: ResourceSubscriptionStore, { mcp }: Config) =>
      upstreamContentUseCases(listings, { store, maxPerSession: mcp.maxSubscriptionsPerSession }),
    [UpstreamListings, TOKENS.ResourceSubscriptionStore, TOKENS.Config],
  );
}
