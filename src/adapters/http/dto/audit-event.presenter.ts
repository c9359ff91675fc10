import { AuditEvent } from '../../../domain/audit';
import { auditEventJson } from '../../audit/audit-chain';

/** Exactly what the chain hashes, plus the hash, so anyone holding the JSON can recompute the chain. */
export function presentAuditEvent(event: AuditEvent) {
  return { ...auditEventJson(event), hash: event.hash };
}
