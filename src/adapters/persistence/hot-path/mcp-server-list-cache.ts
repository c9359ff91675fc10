import { RecordFilter, ResourceStore } from '../../../application/ports/resource-store.port';
import { RecordLocation, ResourceRecord } from '../../../domain/resource/resource-record';
import { MCP_SERVERS_CHANNEL, NotifiedCache } from './change-listener';

/**
 * Every tools/list reads the caller's registered MCP servers. This keeps each
 * user's list in memory (bounded, least recently used out) and otherwise
 * passes through. Writes through this replica evict at once; writes anywhere
 * else arrive as NOTIFY from the resource_records trigger. Like the key cache,
 * it serves nothing while the listener is not connected.
 */
export class McpServerListCache implements ResourceStore, NotifiedCache {
  readonly channel = MCP_SERVERS_CHANNEL;
  private readonly byOwner = new Map<string, ResourceRecord[]>();
  private epoch = 0;
  private enabled = false;

  constructor(
    private readonly inner: ResourceStore,
    readonly maxEntries: number,
  ) {}

  async list(ownerId: string, at: RecordLocation, filter?: RecordFilter, limit?: number): Promise<ResourceRecord[]> {
    // Only the plain list that tools/list reads is kept; a tool's listing asks for a limit of its own.
    if (!isServerList(at, filter) || limit !== undefined) return this.inner.list(ownerId, at, filter, limit);
    const cached = this.enabled ? this.byOwner.get(ownerId) : undefined;
    if (cached) {
      this.byOwner.delete(ownerId);
      this.byOwner.set(ownerId, cached);
      return cached;
    }
    const generation = this.epoch;
    const records = await this.inner.list(ownerId, at, filter);
    if (this.enabled && generation === this.epoch) {
      this.byOwner.set(ownerId, records);
      if (this.byOwner.size > this.maxEntries) this.byOwner.delete(this.byOwner.keys().next().value as string);
    }
    return records;
  }

  find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    return this.inner.find(ownerId, at, id);
  }

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>): Promise<ResourceRecord> {
    return this.evictingAfter(ownerId, at, () => this.inner.create(ownerId, at, data));
  }

  async createWithinLimit(ownerId: string, at: RecordLocation, data: Record<string, unknown>, limit: number): Promise<ResourceRecord | null> {
    return this.evictingAfter(ownerId, at, () => this.inner.createWithinLimit(ownerId, at, data, limit));
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    return this.evictingAfter(ownerId, at, () => this.inner.update(ownerId, at, id, data));
  }

  async remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    return this.evictingAfter(ownerId, at, () => this.inner.remove(ownerId, at, id));
  }

  /** Drops one user's list. */
  evict(ownerId: string): void {
    this.epoch += 1;
    this.byOwner.delete(ownerId);
  }

  enable(): void {
    this.epoch += 1;
    this.byOwner.clear();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.epoch += 1;
    this.byOwner.clear();
  }

  private async evictingAfter<T>(ownerId: string, at: RecordLocation, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      if (at.resource === 'mcp_servers') this.evict(ownerId);
    }
  }
}

function isServerList(at: RecordLocation, filter?: RecordFilter): boolean {
  return at.resource === 'mcp_servers' && at.parentId === null && at.subresource === null && filter === undefined;
}
