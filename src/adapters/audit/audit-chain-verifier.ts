import { AuditEventReader } from '../../application/ports/audit-log.port';
import { chainHash } from './audit-chain';

export type ChainVerdict = { intact: true; events: number } | { intact: false; brokenAtSeq: number };

/**
 * Walks the trail from the anchor (where retention left it) to the head,
 * recomputing each hash from the one before. The first seq that is missing,
 * out of place or does not hash to what is stored is where the chain breaks;
 * the walk must end exactly at the head's seq and hash, so a removed tail (or
 * a row slipped in after it) shows too. Give it a reader over one snapshot.
 */
export class AuditChainVerifier {
  constructor(
    private readonly reader: AuditEventReader,
    private readonly batchSize = 500,
  ) {}

  async verify(): Promise<ChainVerdict> {
    const { anchorSeq, anchorHash, headSeq, headHash } = await this.reader.chain();
    let expectedSeq = anchorSeq + 1;
    let previousHash = anchorHash;
    for (;;) {
      const batch = await this.reader.batch({ afterSeq: expectedSeq - 1 }, this.batchSize);
      for (const event of batch) {
        if (event.seq !== expectedSeq || chainHash(previousHash, event) !== event.hash) return broken(expectedSeq);
        previousHash = event.hash;
        expectedSeq += 1;
      }
      if (batch.length < this.batchSize) break;
    }
    const lastSeq = expectedSeq - 1;
    // Fewer events than the head says: the first missing one. More: the first past the head.
    if (lastSeq !== headSeq) return broken(Math.min(lastSeq, headSeq) + 1);
    if (previousHash !== headHash) return broken(headSeq);
    return { intact: true, events: lastSeq - anchorSeq };
  }
}

function broken(seq: number): ChainVerdict {
  return { intact: false, brokenAtSeq: seq };
}
