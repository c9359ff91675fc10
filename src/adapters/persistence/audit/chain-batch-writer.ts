import { DataSource } from 'typeorm';
import { AuditRecord } from '../../../domain/audit';
import { databaseCall } from '../database-unavailable';
import { appendAtHead, ChainHead, TypeormAuditLog } from './typeorm-audit-log';

/**
 * Writes the group-commit queue's batches, one at a time. It remembers the
 * chain's head its last batch left, and appends the next batch after it in
 * one statement (appendAtHead), since a tools/call answer waits for its batch
 * and a locked transaction costs five round trips. When another writer moved
 * the head meanwhile (another replica, a key change's unit of work), or the
 * head is not known (start, a failed write), the batch is appended under the
 * head's lock as before, which tells the head again.
 */
export class ChainBatchWriter {
  private head: ChainHead | null = null;

  constructor(private readonly dataSource: DataSource) {}

  readonly write = async (batch: readonly AuditRecord[]): Promise<void> => {
    const known = this.head;
    // Whatever happens below, a failure leaves the head unknown: a write whose answer was lost may have moved it.
    this.head = null;
    if (known !== null) {
      const moved = await appendAtHead(this.dataSource.manager, batch, known);
      if (moved !== null) {
        this.head = moved;
        return;
      }
    }
    this.head = await databaseCall(this.dataSource.transaction((manager) => new TypeormAuditLog(manager).appendLocked(batch)));
  };
}
