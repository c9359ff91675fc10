import { randomUUID } from 'node:crypto';
import { MAX_LISTED_RECORDS, RecordFilter, ResourceStore } from '../../src/application/ports/resource-store.port';
import { RecordLocation, ResourceRecord } from '../../src/domain/resource/resource-record';
import { secretFieldsAt } from '../../src/domain/resource/secret-fields';

/** ResourceStore in memory, with the same owner and location rules as the PostgreSQL one. */
export class InMemoryResourceStore implements ResourceStore {
  readonly records: ResourceRecord[] = [];

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id: string = randomUUID()): Promise<ResourceRecord> {
    const now = new Date();
    const record = { id, ownerId, ...at, data: structuredClone(data), createdAt: now, updatedAt: now };
    this.records.push(record);
    return structuredClone(record);
  }

  async createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id?: string,
  ): Promise<ResourceRecord | null> {
    return this.records.filter((r) => this.at(r, ownerId, at)).length >= limit ? null : this.create(ownerId, at, data, id);
  }

  async find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    const found = this.records.find((r) => r.id === id && this.at(r, ownerId, at));
    return found ? structuredClone(found) : null;
  }

  async list(
    ownerId: string,
    at: RecordLocation,
    filter: RecordFilter = {},
    limit = MAX_LISTED_RECORDS,
    offset = 0,
  ): Promise<ResourceRecord[]> {
    return this.records
      .filter((r) => this.at(r, ownerId, at))
      .filter((r) => filter.text === undefined || JSON.stringify(searchable(r)).toLowerCase().includes(filter.text.toLowerCase()))
      .filter(
        (r) =>
          filter.where === undefined ||
          Object.entries(filter.where).every(([k, v]) => JSON.stringify(searchable(r)[k]) === JSON.stringify(v)),
      )
      .slice(offset, offset + limit)
      .map((r) => structuredClone(r));
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    const found = this.records.find((r) => r.id === id && this.at(r, ownerId, at));
    if (!found) return null;
    Object.assign(found, { data: structuredClone(data), updatedAt: new Date() });
    return structuredClone(found);
  }

  async remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    const index = this.records.findIndex((r) => r.id === id && this.at(r, ownerId, at));
    if (index < 0) return false;
    const removed = new Set([id]);
    // Cascades like the foreign key: items of removed records go too.
    for (let grew = true; grew;) {
      grew = false;
      for (const r of this.records)
        if (r.parentId !== null && removed.has(r.parentId) && !removed.has(r.id)) {
          removed.add(r.id);
          grew = true;
        }
    }
    this.records.splice(0, this.records.length, ...this.records.filter((r) => !removed.has(r.id)));
    return true;
  }

  async ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    return this.records.find((r) => r.id === id && this.at(r, r.ownerId, at))?.ownerId ?? null;
  }

  private at(r: ResourceRecord, ownerId: string, at: RecordLocation): boolean {
    return r.ownerId === ownerId && r.resource === at.resource && r.parentId === at.parentId && r.subresource === at.subresource;
  }
}

/** What search and query look at: the data without its secret fields. */
function searchable(r: ResourceRecord): Record<string, unknown> {
  const secrets = secretFieldsAt(r);
  return Object.fromEntries(Object.entries(r.data).filter(([field]) => !secrets.includes(field)));
}
