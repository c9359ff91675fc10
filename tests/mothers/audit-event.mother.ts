import { randomUUID } from 'node:crypto';
import { chainHash, GENESIS_HASH } from '../../src/adapters/audit/audit-chain';
import { AuditEvent, AuditRecord } from '../../src/domain/audit';

export const AUDIT_EPOCH = new Date('2026-06-01T12:00:00.000Z');

/** Audit records and chained events: a key.created by a fresh user by default. */
export const AuditEventMother = {
  record(overrides: Partial<AuditRecord> = {}): AuditRecord {
    const userId = overrides.userId ?? randomUUID();
    const keyId = randomUUID();
    return {
      action: 'key.created',
      actor: { type: 'user', id: userId },
      userId,
      keyId,
      target: { type: 'api_key', id: keyId },
      occurredAt: AUDIT_EPOCH,
      requestId: 'req-1',
      ip: '127.0.0.1',
      details: { name: 'ci', scopes: ['projects:read'] },
      ...overrides,
    };
  },

  /** The records as the writer stores them: seq from `firstSeq`, each hash over the one before. */
  chain(records: AuditRecord[], firstSeq = 1, previousHash = GENESIS_HASH): AuditEvent[] {
    let hash = previousHash;
    return records.map((record, i) => {
      const event = { ...record, id: randomUUID(), seq: firstSeq + i };
      hash = chainHash(hash, event);
      return { ...event, hash };
    });
  },

  /** `count` chained events, one a second from AUDIT_EPOCH. */
  many(count: number, overrides: Partial<AuditRecord> = {}): AuditEvent[] {
    return AuditEventMother.chain(
      Array.from({ length: count }, (_, i) =>
        AuditEventMother.record({ occurredAt: new Date(AUDIT_EPOCH.getTime() + i * 1000), ...overrides }),
      ),
    );
  },
};
