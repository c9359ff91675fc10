import { randomUUID } from 'node:crypto';
import { RecordFilter, ResourceStore } from '../../application/ports/resource-store.port';
import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';
import { withoutSecretValues } from '../../domain/resource/secret-fields';
import { SecretBoxError } from '../crypto/aes-gcm-secret-box';
import { RecordSecrets } from './record-secrets';

/** Told of each record read whose secrets did not decrypt: its id and the box's reason (a key id at most, never a value). */
export type UnreadableSecrets = (record: ResourceRecord, reason: string) => void;

/**
 * Keeps secret values (upstream MCP servers' header values) encrypted at rest:
 * encrypts them on the way into the inner store, bound to their record (whose
 * id it picks on create), and decrypts them on the way out, so everything
 * above it sees plaintext and the table never does. A record whose secrets do
 * not decrypt comes out without them, marked unreadableSecrets, so it costs
 * that record alone and not the listing it is in.
 */
export class EncryptedResourceStore implements ResourceStore {
  constructor(
    private readonly inner: ResourceStore,
    private readonly secrets: RecordSecrets,
    private readonly unreadable: UnreadableSecrets = () => undefined,
  ) {}

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id: string = randomUUID()): Promise<ResourceRecord> {
    return this.opened(await this.inner.create(ownerId, at, this.secrets.seal({ ownerId, id }, at, data), id));
  }

  async createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id: string = randomUUID(),
  ): Promise<ResourceRecord | null> {
    const record = await this.inner.createWithinLimit(ownerId, at, this.secrets.seal({ ownerId, id }, at, data), limit, id);
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
    const record = await this.inner.update(ownerId, at, id, this.secrets.seal({ ownerId, id }, at, data));
    return record && this.opened(record);
  }

  remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    return this.inner.remove(ownerId, at, id);
  }

  ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    return this.inner.ownerOf(at, id);
  }

  private opened(record: ResourceRecord): ResourceRecord {
    try {
      return { ...record, data: this.secrets.open(record, record, record.data) };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      this.unreadable(record, error.message);
      return { ...record, data: withoutSecretValues(record, record.data), unreadableSecrets: true };
    }
  }
}
