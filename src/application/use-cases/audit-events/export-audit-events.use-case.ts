import { AuditEvent } from '../../../domain/audit';
import { AuditEventReader, AuditFilter } from '../../ports/audit-log.port';
import { AuditQueryInput, parseAuditFilter, restrictToActor } from './audit-query';

/** Events read per query: the export holds no connection between batches. */
export const EXPORT_BATCH = 500;

export type ExportAuditEventsInput = AuditQueryInput;

/**
 * Every matching event, oldest first (commit order, so a reader can recompute
 * the chain as it goes), in batches of EXPORT_BATCH by seq. The filter is
 * checked before anything is read, so a bad one is an error, not a broken
 * stream; the export ends at the chain's head as it was when it began, so a
 * busy trail cannot keep it running forever.
 */
export class ExportAuditEvents {
  constructor(private readonly reader: AuditEventReader) {}

  async execute(input: ExportAuditEventsInput): Promise<AsyncIterable<AuditEvent[]>> {
    const filter = restrictToActor(parseAuditFilter(input), input.actor);
    const { headSeq } = await this.reader.chain();
    return this.batches(filter, headSeq);
  }

  private async *batches(filter: AuditFilter, throughSeq: number): AsyncGenerator<AuditEvent[]> {
    let afterSeq = 0;
    for (;;) {
      const batch = await this.reader.batch({ ...filter, afterSeq, throughSeq }, EXPORT_BATCH);
      if (batch.length > 0) yield batch;
      if (batch.length < EXPORT_BATCH) return;
      afterSeq = batch[batch.length - 1].seq;
    }
  }
}
