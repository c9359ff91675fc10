import { Container } from 'inversify';
import { UpstreamListings } from '../../application/use-cases/gateway/external/upstream-listings';
import { EndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { FindEndpointCapabilities } from '../../application/use-cases/gateway/upstream-view/find-endpoint-capabilities.use-case';
import { LruLoadingCache } from '../../adapters/mcp/upstream/lru-loading-cache';
import { Config } from '../config/config';
import { TOKENS } from './tokens';

/** One entry per upstream server version, a few booleans each: the count alone bounds the heap. */
const CAPABILITY_CACHE_ENTRIES = 10_000;

/** What /mcp/servers/<name> declares at initialize: the upstream's capabilities, kept as long as its lists (MCP_UPSTREAM_LIST_TTL_SECONDS). */
export function bindMcpCapabilities(c: Container): void {
  c.bind(FindEndpointCapabilities).toResolvedValue(
    (listings: UpstreamListings, { mcp }: Config) =>
      new FindEndpointCapabilities(listings, new LruLoadingCache<EndpointCapabilities>({ maxEntries: CAPABILITY_CACHE_ENTRIES, ttlMs: mcp.upstreamListTtlSeconds * 1000 })),
    [UpstreamListings, TOKENS.Config],
  );
}
