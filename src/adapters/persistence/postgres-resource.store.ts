import { DataSource } from 'typeorm';
import { RecordFilter, MAX_LISTED_RECORDS, ResourceStore } from '../../application/ports/resource-store.port';
import { ConflictError } from '../../domain/errors';
import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';
import { ResourceRecordMapper, ResourceRecordRow } from './resource-record.mapper';

// Every statement starts from the owner and the location, so a record of
// another user or another place is never read, changed or deleted.
const AT = `user_id = $1 AND resource = $2 AND parent_id IS NOT DISTINCT FROM $3::uuid AND subresource IS NOT DISTINCT FROM $4::varchar`;

/** ResourceStore on PostgreSQL: one table, data as jsonb. */
export class PostgresResourceStore implements ResourceStore {
  constructor(private readonly dataSource: DataSource) {}

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>): Promise<ResourceRecord> {
    const rows = await this.run(
      `INSERT INTO resource_records (user_id, resource, parent_id, subresource, data) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [...where(ownerId, at), data],
    );
    return ResourceRecordMapper.toDomain(rows[0]);
  }

  async find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    const rows = await this.run(`SELECT * FROM resource_records WHERE ${AT} AND id = $5`, [...where(ownerId, at), id]);
    return rows.length > 0 ? ResourceRecordMapper.toDomain(rows[0]) : null;
  }

  async list(ownerId: string, at: RecordLocation, filter: RecordFilter = {}): Promise<ResourceRecord[]> {
    const params: unknown[] = where(ownerId, at);
    let sql = `SELECT * FROM resource_records WHERE ${AT}`;
    if (filter.text !== undefined) {
      params.push(`%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      sql += ` AND data::text ILIKE $${params.length}`;
    }
    if (filter.where !== undefined) {
      params.push(filter.where);
      sql += ` AND data @> $${params.length}::jsonb`;
    }
    const rows = await this.run(`${sql} ORDER BY created_at, id LIMIT ${MAX_LISTED_RECORDS}`, params);
    return rows.map(ResourceRecordMapper.toDomain);
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    const rows = await this.run(
      `UPDATE resource_records SET data = $6, updated_at = now() WHERE ${AT} AND id = $5 RETURNING *`,
      [...where(ownerId, at), id, data],
    );
    return rows.length > 0 ? ResourceRecordMapper.toDomain(rows[0]) : null;
  }

  async remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    const rows = await this.run(`DELETE FROM resource_records WHERE ${AT} AND id = $5 RETURNING id`, [...where(ownerId, at), id]);
    return rows.length > 0;
  }

  private async run(sql: string, params: unknown[]): Promise<ResourceRecordRow[]> {
    try {
      const result: unknown = await this.dataSource.query(sql, params);
      // UPDATE and DELETE ... RETURNING come back as [rows, count].
      return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as ResourceRecordRow[];
    } catch (error) {
      const code = (error as { driverError?: { code?: string } }).driverError?.code;
      if (code === '23505') throw new ConflictError('An MCP server with this name already exists: names must be unique');
      throw error;
    }
  }
}

function where(ownerId: string, at: RecordLocation): unknown[] {
  return [ownerId, at.resource, at.parentId, at.subresource];
}
