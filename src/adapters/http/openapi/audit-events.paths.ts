import { noStore, operation, queryParameter } from './operation';
import { AuditEventDto, AuditPageDto } from '../dto/audit-event.dto';
import { schemaRef } from './dto-schemas';
import { Schema, timestamp, uuid } from './schema-parts';

const filters = [
  queryParameter('action', 'One action (as events name them).', { type: 'string' }),
  queryParameter('key_id', 'Events about this key.', uuid),
  queryParameter('user_id', "Another user's events: admins only (403).", uuid),
  queryParameter('since', 'Inclusive, ISO-8601 with a time zone.', timestamp),
  queryParameter('until', 'Inclusive, ISO-8601 with a time zone.', timestamp),
];

export const auditEventPaths: Record<string, Schema> = {
  '/api/v1/audit-events': {
    get: operation({
      tag: 'Audit trail',
      operationId: 'listAuditEvents',
      summary: 'Pages of events, newest first; or, with `Accept: application/x-ndjson`, every match streamed oldest first',
      description:
        'An admin sees every event, anyone else only their own. An unknown or repeated parameter is 400, which comes before a 403. ' +
        'The NDJSON export has one `AuditEvent` per line, ends at the newest event that existed when it began and takes no `limit` or `cursor` (400). ' +
        'A failure after the first byte cuts the connection.',
      parameters: [
        ...filters,
        queryParameter('limit', 'JSON pages only: 1–1000, default 100.', { type: 'integer', minimum: 1, maximum: 1000 }),
        queryParameter('cursor', "JSON pages only: the previous page's `next_cursor`.", { type: 'string' }),
      ],
      ok: {
        200: {
          description: 'A page (JSON), or the export (NDJSON: each line an `AuditEvent`).',
          headers: noStore,
          content: {
            'application/json': { schema: schemaRef(AuditPageDto) },
            'application/x-ndjson': { schema: schemaRef(AuditEventDto) },
          },
        },
      },
      errors: [400, 401, 403, 503],
    }),
  },
};
