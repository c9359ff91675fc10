import { RecordFilter, ResourceStore } from '../../application/ports/resource-store.port';
import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';
import { RecordSecrets } from './record-secrets';

/**
 * Keeps secret values (upstream MCP servers' header values) encrypted at rest:
 * encrypts them on the way into the inner store and decrypts them on the way
 * out, so everything above it sees plaintext and the table never does.
 */
export class EncryptedResourceStore implements ResourceStore {
  constructor(
    private readonly inner: ResourceStore,
    private readonly secrets: RecordSecrets,
  ) {}

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>): Promise<ResourceRecord> {
    return this.opened(await this.inner.create(ownerId, at, this.secrets.seal(ownerId, at, data)));
  }

  async createWithinLimit(ownerId: string, at: RecordLocation, data: Record<string, unknown>, limit: number): Promise<ResourceRecord | null> {
    const record = await this.inner.createWithinLimit(ownerId, at, this.secrets.seal(ownerId, at, data), limit);
    return record && this.opened(record);
  }

  async find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    const record = await this.inner.find(ownerId, at, id);
    return record && this.opened(record);
  }

  async list(ownerId: string, at: RecordLocation, filter?: RecordFilter, limit?: number, offset?: number): Promise<ResourceRecord[]> {
    return (await this.inner.list(ownerId, at, filter, limit, offset)).map((record) => this.opened(record));
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    const record = await this.inner.update(ownerId, at, id, this.secrets.seal(ownerId, at, data));
    return record && this.opened(record);
  }

  remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    return this.inner.remove(ownerId, at, id);
  }

  ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    return this.inner.ownerOf(at, id);
  }

  private opened(record: ResourceRecord): ResourceRecord {
    return { ...record, data: this.secrets.open(record.ownerId, record, record.data) };
  }
}
