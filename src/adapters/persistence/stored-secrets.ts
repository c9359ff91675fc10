import { DataSource } from 'typeorm';
import { RESOURCES_WITH_SECRETS } from '../../domain/resource/secret-fields';
import { RecordSecrets, ResealScope } from './record-secrets';
import { ResourceRecordMapper, ResourceRecordRow } from './resource-record.mapper';

const BATCH = 500;

/**
 * Re-encrypts secret values already in the table: at start-up those written
 * in plaintext before encryption existed, and on `npm run secrets:rotate`
 * every value not under the current key. Each changed record is rewritten
 * under a row lock, so a user's concurrent update is never lost.
 */
export class StoredSecrets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: RecordSecrets,
  ) {}

  /** How many records were rewritten. */
  async reseal(scope: ResealScope): Promise<number> {
    let changed = 0;
    for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
      const rows: ResourceRecordRow[] = await this.dataSource.query(
        `SELECT * FROM resource_records WHERE resource = ANY($1) AND parent_id IS NULL AND id > $2 ORDER BY id LIMIT ${BATCH}`,
        [RESOURCES_WITH_SECRETS, after],
      );
      if (rows.length === 0) return changed;
      for (const row of rows) if (this.stale(row, scope) && (await this.resealRow(row.id, scope))) changed += 1;
      after = rows[rows.length - 1].id;
    }
  }

  private stale(row: ResourceRecordRow, scope: ResealScope): boolean {
    const record = ResourceRecordMapper.toDomain(row);
    return this.secrets.reseal(record.ownerId, record, record.data, scope) !== record.data;
  }

  private resealRow(id: string, scope: ResealScope): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows: ResourceRecordRow[] = await manager.query('SELECT * FROM resource_records WHERE id = $1 FOR UPDATE', [id]);
      if (rows.length === 0) return false;
      const record = ResourceRecordMapper.toDomain(rows[0]);
      const data = this.secrets.reseal(record.ownerId, record, record.data, scope);
      if (data === record.data) return false;
      await manager.query('UPDATE resource_records SET data = $2 WHERE id = $1', [id, data]);
      return true;
    });
  }
}
