import { AuditAction, AuditRecord } from '../../../../domain/audit';
import { ResourceRecord } from '../../../../domain/resource/resource-record';
import { serverEvent, ServerChanger } from '../external/mcp-server-audit';

/** What the trail says about a connection: the server's name and URL origin, as for the server's own events; never the secret. */
export function connectionEvent(
  action: Extract<AuditAction, `mcp_connection.${string}`>,
  changer: ServerChanger,
  server: ResourceRecord,
  at: Date,
): AuditRecord {
  return serverEvent(action, changer, server, at);
}
