import { Container } from 'inversify';
import { KeyCache } from '../../src/adapters/persistence/hot-path/key-cache';
import { LastUsedCoalescer } from '../../src/adapters/persistence/hot-path/last-used-coalescer';
import { McpServerListCache } from '../../src/adapters/persistence/hot-path/mcp-server-list-cache';
import { TOKENS } from '../../src/infrastructure/di/tokens';

/** The hot-path parts tests look into: whether the cache is on and what it holds, pending last_used_at, the cached store. */
export interface HotPathParts {
  cache: KeyCache;
  lastUsed: LastUsedCoalescer;
  resources: McpServerListCache;
}

export function hotPathOf(container: Container): HotPathParts {
  return {
    cache: container.get<KeyCache>(TOKENS.KeyCache),
    lastUsed: container.get(LastUsedCoalescer),
    resources: container.get(McpServerListCache),
  };
}
