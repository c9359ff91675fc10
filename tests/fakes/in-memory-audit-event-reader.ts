import { AuditChainState, AuditEventReader, AuditFilter } from '../../src/application/ports/audit-log.port';
import { AuditEvent } from '../../src/domain/audit';

/**
 * The stored trail as an array (in seq order) and the audit_chain row; tests
 * edit both freely to play tamperer or retention. `reads` counts batch and
 * page calls, so tests can see the work is done in bounded pieces.
 */
export class InMemoryAuditEventReader implements AuditEventReader {
  reads = 0;

  constructor(
    public events: AuditEvent[] = [],
    public state?: AuditChainState,
  ) {}

  async page(filter: AuditFilter, limit: number): Promise<AuditEvent[]> {
    this.reads += 1;
    return this.matching(filter)
      .sort((a, b) => b.seq - a.seq)
      .slice(0, limit);
  }

  async batch(filter: AuditFilter, limit: number): Promise<AuditEvent[]> {
    this.reads += 1;
    return this.matching(filter)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit);
  }

  async chain(): Promise<AuditChainState> {
    if (this.state) return { ...this.state };
    const last = [...this.events].sort((a, b) => a.seq - b.seq).at(-1);
    const genesis = '0'.repeat(64);
    return { anchorSeq: 0, anchorHash: genesis, headSeq: last?.seq ?? 0, headHash: last?.hash ?? genesis };
  }

  private matching(f: AuditFilter): AuditEvent[] {
    return this.events.filter(
      (e) =>
        (f.action === undefined || e.action === f.action) &&
        (f.keyId === undefined || e.keyId === f.keyId) &&
        (f.userId === undefined || e.userId === f.userId) &&
        (f.since === undefined || e.occurredAt >= f.since) &&
        (f.until === undefined || e.occurredAt <= f.until) &&
        (f.beforeSeq === undefined || e.seq < f.beforeSeq) &&
        (f.afterSeq === undefined || e.seq > f.afterSeq) &&
        (f.throughSeq === undefined || e.seq <= f.throughSeq),
    );
  }
}
