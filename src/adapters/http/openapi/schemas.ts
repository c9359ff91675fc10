import { AUDIT_ACTIONS } from '../../../domain/audit';
import { SCOPE_CATALOG } from '../../../domain/scope';
import { problemSchema } from './responses';
import { arrayOf, nullable, object, ref, Schema, sha256Hex, timestamp, uuid } from './schema-parts';

const scopes: Schema = arrayOf(ref('Scope'), { description: '`[]` means full access.' });

const idAndType = object({ type: { type: 'string' }, id: nullable({ type: 'string' }) });

/** components.schemas not yet generated from a DTO class (dto-schemas.ts), each an allow-list of what the presenters in ../dto send. */
export const schemas: Record<string, Schema> = {
  Problem: problemSchema,
  Scope: { enum: SCOPE_CATALOG.map(({ scope }) => scope) },
  AuditEvent: object({
    id: uuid,
    seq: { type: 'integer', minimum: 1 },
    occurred_at: timestamp,
    action: { enum: [...AUDIT_ACTIONS] },
    actor: object({ type: { enum: ['user', 'key', 'scanner', 'system'] }, id: nullable({ type: 'string' }) }),
    user_id: nullable({ type: 'string' }),
    key_id: nullable(uuid),
    target: idAndType,
    request_id: nullable({ type: 'string' }),
    ip: nullable({ type: 'string' }),
    details: { type: 'object' },
    hash: { ...sha256Hex, description: "SHA-256 over the previous event's hash and this event's canonical JSON." },
  }),
  AuditPage: object({ events: arrayOf(ref('AuditEvent')), next_cursor: nullable({ type: 'string' }) }),
  LeakReport: arrayOf(
    {
      type: 'object',
      properties: { token: { type: 'string', minLength: 1, maxLength: 1024 }, type: { type: 'string', minLength: 1, maxLength: 255 }, url: { type: 'string', maxLength: 2048 }, source: { type: 'string', maxLength: 255 } },
      required: ['token', 'type'],
      description: 'Other fields are ignored, so the scanner can extend its format.',
    },
    { maxItems: 1000 },
  ),
  LeakVerdict: object({ token_hash: sha256Hex, token_type: { type: 'string' }, label: { enum: ['true_positive', 'false_positive'] } }),
  Introspection: {
    oneOf: [
      object({ active: { const: false } }),
      object(
        {
          active: { const: true },
          token_type: { const: 'api_key' },
          scope: { type: 'string', description: 'Every scope granted, space-separated.' },
          sub: uuid,
          jti: uuid,
          iat: { type: 'integer' },
          exp: { type: 'integer', description: 'Absent when the key never expires.' },
        },
        ['exp'],
      ),
    ],
  },
};
