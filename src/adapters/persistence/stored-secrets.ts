import { DataSource } from 'typeorm';
import { SecretBoxError } from '../crypto/aes-gcm-secret-box';
import { RESOURCES_WITH_SECRETS } from '../../domain/resource/secret-fields';
import { StoredConnectionSecrets } from './connections/stored-connection-secrets';
import { RecordSecrets, ResealScope } from './record-secrets';
import { ResourceRecordMapper, ResourceRecordRow } from './resource-record.mapper';

const BATCH = 500;

/** What a reseal did: how many records it rewrote, and which it could not read (their secrets did not decrypt), with why. */
export interface ResealReport {
  changed: number;
  unreadable: { id: string; reason: string }[];
}

/**
 * Re-encrypts secret values already in the table: at start-up those written
 * in plaintext before encryption existed or bound the older way, and on
 * `npm run secrets:rotate` every value not current (ResealScope). Each changed
 * record is rewritten under a row lock, so a user's concurrent update is
 * never lost. A record whose secrets do not decrypt is reported and passed
 * over, so it does not stop the others.
 */
export class StoredSecrets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: RecordSecrets,
  ) {}

  async reseal(scope: ResealScope): Promise<ResealReport> {
    const report: ResealReport = { changed: 0, unreadable: [] };
    for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
      const rows: ResourceRecordRow[] = await this.dataSource.query(
        `SELECT * FROM resource_records WHERE resource = ANY($1) AND parent_id IS NULL AND id > $2 ORDER BY id LIMIT ${BATCH}`,
        [RESOURCES_WITH_SECRETS, after],
      );
      if (rows.length === 0) break;
      for (const row of rows) {
        try {
          if (this.stale(row, scope) && (await this.resealRow(row.id, scope))) report.changed += 1;
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          report.unreadable.push({ id: row.id, reason: error.message });
        }
      }
      after = rows[rows.length - 1].id;
    }
    // Users' connection secrets (mcp_connections) move to the current key with the rest.
    if (scope === 'all') await new StoredConnectionSecrets(this.dataSource, this.secrets.box).rotate(report);
    return report;
  }

  private stale(row: ResourceRecordRow, scope: ResealScope): boolean {
    const record = ResourceRecordMapper.toDomain(row);
    return this.secrets.reseal(record, record, record.data, scope) !== record.data;
  }

  private resealRow(id: string, scope: ResealScope): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const rows: ResourceRecordRow[] = await manager.query('SELECT * FROM resource_records WHERE id = $1 FOR UPDATE', [id]);
      if (rows.length === 0) return false;
      const record = ResourceRecordMapper.toDomain(rows[0]);
      const data = this.secrets.reseal(record, record, record.data, scope);
      if (data === record.data) return false;
      await manager.query('UPDATE resource_records SET data = $2 WHERE id = $1', [id, data]);
      return true;
    });
  }
}
