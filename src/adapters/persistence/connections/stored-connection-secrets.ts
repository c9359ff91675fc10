import { DataSource } from 'typeorm';
import { SecretBox } from '../../../application/ports/secret-box.port';
import { SecretBoxError } from '../../crypto/aes-gcm-secret-box';
import { ConnectionField, ConnectionSecrets } from './connection-secrets';

const BATCH = 500;
const FIELDS: { field: ConnectionField; column: 'sealed_secret' | 'sealed_tokens' }[] = [
  { field: 'secret', column: 'sealed_secret' },
  { field: 'tokens', column: 'sealed_tokens' },
];

interface SealedRow {
  id: string;
  user_id: string;
  server_id: string;
  sealed_secret: string | null;
  sealed_tokens: string | null;
}

/**
 * On `npm run secrets:rotate`: re-encrypts under the current key every
 * connection secret or token set sealed under a previous one, each row under
 * a row lock so a concurrent save is never lost. A row that does not open is
 * reported and passed over. (Connections were sealed bound to their row from
 * the start: nothing needs the start-up upgrade.)
 */
export class StoredConnectionSecrets {
  private readonly secrets: ConnectionSecrets;

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {
    this.secrets = new ConnectionSecrets(box);
  }

  async rotate(report: { changed: number; unreadable: { id: string; reason: string }[] }): Promise<void> {
    for (let after = '00000000-0000-0000-0000-000000000000'; ;) {
      const rows: SealedRow[] = await this.dataSource.query(
        `SELECT id, user_id, server_id, sealed_secret, sealed_tokens FROM mcp_connections WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) return;
      for (const row of rows) {
        if (!this.stale(row)) continue;
        try {
          if (await this.rotateRow(row.id)) report.changed += 1;
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          report.unreadable.push({ id: `connection ${row.id}`, reason: error.message });
        }
      }
      after = rows[rows.length - 1].id;
    }
  }

  private stale(row: SealedRow): boolean {
    return FIELDS.some(({ column }) => row[column] !== null && !this.box.isCurrent(row[column]));
  }

  private rotateRow(id: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [row]: SealedRow[] = await manager.query(
        'SELECT id, user_id, server_id, sealed_secret, sealed_tokens FROM mcp_connections WHERE id = $1 FOR UPDATE',
        [id],
      );
      if (row === undefined || !this.stale(row)) return false;
      const next = { ...row };
      for (const { field, column } of FIELDS) {
        const sealed = row[column];
        if (sealed !== null && !this.box.isCurrent(sealed)) {
          next[column] = this.secrets.seal(row.user_id, row.server_id, field, this.secrets.open(row.user_id, row.server_id, field, sealed));
        }
      }
      await manager.query('UPDATE mcp_connections SET sealed_secret = $2, sealed_tokens = $3 WHERE id = $1', [
        id,
        next.sealed_secret,
        next.sealed_tokens,
      ]);
      return true;
    });
  }
}
