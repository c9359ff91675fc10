import { AuditEvent } from '../../../domain/audit';
import { auditEventJson } from '../../audit/audit-chain';
import { AuditEventDto } from './audit-event.dto';

/** Exactly what the chain hashes, plus the hash, so anyone holding the JSON can recompute the chain. */
export function presentAuditEvent(event: AuditEvent): AuditEventDto {
  return { ...auditEventJson(event), hash: event.hash };
}
