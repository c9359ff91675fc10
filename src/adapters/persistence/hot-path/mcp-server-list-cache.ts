import { RecordFilter, ResourceStore } from '../../../application/ports/resource-store.port';
import { RecordLocation, ResourceRecord } from '../../../domain/resource/resource-record';
import { MCP_SERVERS_CHANNEL } from './change-listener';
import { NotifiedLruCache } from './notified-lru-cache';

/**
 * Every tools/list reads the caller's registered MCP servers. This keeps each
 * user's list in `lists` and otherwise passes through. Writes through this
 * replica evict at once; writes anywhere else arrive as NOTIFY from the
 * resource_records trigger, naming the owner, to which `lists` listens.
 */
export class McpServerListCache implements ResourceStore {
  readonly lists: NotifiedLruCache<string, ResourceRecord[]>;

  constructor(
    private readonly inner: ResourceStore,
    maxEntries: number,
    staleAfterMs = 0,
  ) {
    this.lists = new NotifiedLruCache({ channel: MCP_SERVERS_CHANNEL, maxEntries, staleAfterMs });
  }

  async list(ownerId: string, at: RecordLocation, filter?: RecordFilter, limit?: number, offset?: number): Promise<ResourceRecord[]> {
    // Only the plain list that tools/list reads is kept; a tool's listing and a REST page ask for a limit of their own.
    if (!isServerList(at, filter) || limit !== undefined || offset !== undefined)
      return this.inner.list(ownerId, at, filter, limit, offset);
    return this.lists.get(ownerId) ?? this.lists.load(ownerId, () => this.inner.list(ownerId, at, filter));
  }

  find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    return this.inner.find(ownerId, at, id);
  }

  ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    return this.inner.ownerOf(at, id);
  }

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id?: string): Promise<ResourceRecord> {
    return this.evictingAfter(ownerId, at, () => this.inner.create(ownerId, at, data, id));
  }

  async createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id?: string,
  ): Promise<ResourceRecord | null> {
    return this.evictingAfter(ownerId, at, () => this.inner.createWithinLimit(ownerId, at, data, limit, id));
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    return this.evictingAfter(ownerId, at, () => this.inner.update(ownerId, at, id, data));
  }

  async remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    return this.evictingAfter(ownerId, at, () => this.inner.remove(ownerId, at, id));
  }

  private async evictingAfter<T>(ownerId: string, at: RecordLocation, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      if (at.resource === 'mcp_servers') this.lists.evict(ownerId);
    }
  }
}

function isServerList(at: RecordLocation, filter?: RecordFilter): boolean {
  return at.resource === 'mcp_servers' && at.parentId === null && at.subresource === null && filter === undefined;
}
