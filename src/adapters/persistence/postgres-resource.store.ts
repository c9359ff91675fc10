import { EntityManager } from 'typeorm';
import { RecordFilter, MAX_LISTED_RECORDS, ResourceStore } from '../../application/ports/resource-store.port';
import { ConflictError } from '../../domain/errors';
import { RecordLocation, ResourceRecord } from '../../domain/resource/resource-record';
import { secretFieldsAt } from '../../domain/resource/secret-fields';
import { databaseCall } from './database-unavailable';
import { NamedStatement, queryNamed } from './named-statement';
import { ResourceRecordMapper, ResourceRecordRow } from './resource-record.mapper';

// Every statement starts from the owner and the location, so a record of
// another user or another place is never read, changed or deleted.
const AT = `user_id = $1 AND resource = $2 AND parent_id IS NOT DISTINCT FROM $3::uuid AND subresource IS NOT DISTINCT FROM $4::varchar`;
const INSERT = `INSERT INTO resource_records (id, user_id, resource, parent_id, subresource, data)
  VALUES (COALESCE($6::uuid, gen_random_uuid()), $1, $2, $3, $4, $5) RETURNING *`;
const FIND: NamedStatement = {
  name: 'resource_records.find',
  text: `SELECT id, user_id, resource, parent_id, subresource, data, created_at, updated_at FROM resource_records WHERE ${AT} AND id = $5`,
};

type Runner = Pick<EntityManager, 'query'>;

/** ResourceStore on PostgreSQL: one table, data as jsonb. */
export class PostgresResourceStore implements ResourceStore {
  /** The data source's manager, or a transaction's (see TypeormUnitOfWork). */
  constructor(private readonly manager: EntityManager) {}

  async create(ownerId: string, at: RecordLocation, data: Record<string, unknown>, id?: string): Promise<ResourceRecord> {
    const rows = await this.run(INSERT, [...where(ownerId, at), data, id ?? null]);
    return ResourceRecordMapper.toDomain(rows[0]);
  }

  async createWithinLimit(
    ownerId: string,
    at: RecordLocation,
    data: Record<string, unknown>,
    limit: number,
    id?: string,
  ): Promise<ResourceRecord | null> {
    const rows = await this.guarded(() =>
      this.manager.transaction(async (manager) => {
        // Serialises creates per owner and location, so two concurrent ones cannot both pass the count.
        await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `resource_records:${ownerId}:${at.resource}:${at.parentId}:${at.subresource}`,
        ]);
        const [{ held }] = await manager.query<{ held: number }[]>(
          `SELECT count(*)::int AS held FROM resource_records WHERE ${AT}`,
          where(ownerId, at),
        );
        return held >= limit ? [] : this.run(INSERT, [...where(ownerId, at), data, id ?? null], manager);
      }),
    );
    return rows.length > 0 ? ResourceRecordMapper.toDomain(rows[0]) : null;
  }

  async find(ownerId: string, at: RecordLocation, id: string): Promise<ResourceRecord | null> {
    const rows = await this.guarded(() => queryNamed<ResourceRecordRow>(this.manager, FIND, [...where(ownerId, at), id]));
    return rows.length > 0 ? ResourceRecordMapper.toDomain(rows[0]) : null;
  }

  async list(
    ownerId: string,
    at: RecordLocation,
    filter: RecordFilter = {},
    limit = MAX_LISTED_RECORDS,
    offset = 0,
  ): Promise<ResourceRecord[]> {
    const params: unknown[] = where(ownerId, at);
    let sql = `SELECT * FROM resource_records WHERE ${AT}`;
    // Search and query never see secret fields: matching them would let a reader guess a masked value.
    let searched = 'data';
    const secrets = secretFieldsAt(at);
    if (secrets.length > 0 && (filter.text !== undefined || filter.where !== undefined)) {
      params.push([...secrets]);
      searched = `(data - $${params.length}::text[])`;
    }
    if (filter.text !== undefined) {
      params.push(`%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      sql += ` AND ${searched}::text ILIKE $${params.length}`;
    }
    if (filter.where !== undefined) {
      params.push(filter.where);
      sql += ` AND ${searched} @> $${params.length}::jsonb`;
    }
    params.push(limit, offset);
    const rows = await this.run(`${sql} ORDER BY created_at, id LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
    return rows.map((row) => ResourceRecordMapper.toDomain(row));
  }

  async update(ownerId: string, at: RecordLocation, id: string, data: Record<string, unknown>): Promise<ResourceRecord | null> {
    const rows = await this.run(`UPDATE resource_records SET data = $6, updated_at = now() WHERE ${AT} AND id = $5 RETURNING *`, [
      ...where(ownerId, at),
      id,
      data,
    ]);
    return rows.length > 0 ? ResourceRecordMapper.toDomain(rows[0]) : null;
  }

  async remove(ownerId: string, at: RecordLocation, id: string): Promise<boolean> {
    const rows = await this.run(`DELETE FROM resource_records WHERE ${AT} AND id = $5 RETURNING id`, [...where(ownerId, at), id]);
    return rows.length > 0;
  }

  async ownerOf(at: RecordLocation, id: string): Promise<string | null> {
    const rows = await this.run(
      `SELECT user_id FROM resource_records
       WHERE resource = $1 AND parent_id IS NOT DISTINCT FROM $2::uuid AND subresource IS NOT DISTINCT FROM $3::varchar AND id = $4`,
      [at.resource, at.parentId, at.subresource, id],
    );
    return rows.length > 0 ? rows[0].user_id : null;
  }

  private async run(sql: string, params: unknown[], runner: Runner = this.manager): Promise<ResourceRecordRow[]> {
    return this.guarded(async () => {
      const result: unknown = await runner.query(sql, params);
      // UPDATE and DELETE ... RETURNING come back as [rows, count].
      return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as ResourceRecordRow[];
    });
  }

  /** Every statement runs through here: a duplicate name is a ConflictError, an outage a DatabaseUnavailableError. */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await databaseCall(work());
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
