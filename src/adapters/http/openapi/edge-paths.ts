import { MAX_FORM_BYTES } from '../middleware/form-body';
import { json, noContent, noStore, operation } from './operation';
import { MAX_REPORTS } from '../../../application/use-cases/report-leaked-keys/leak-report';
import { ActiveIntrospectionDto, InactiveIntrospectionDto, IntrospectionFormDto } from '../dto/introspection.dto';
import { LeakReportEntryDto, LeakVerdictDto } from '../dto/leak-report.dto';
import { schemaRef } from './dto-schemas';
import { Schema } from './schema-parts';

const signatureHeaders: Schema[] = [
  {
    name: 'Github-Public-Key-Identifier',
    in: 'header',
    required: true,
    description: "Names the scanner's key.",
    schema: { type: 'string' },
  },
  {
    name: 'Github-Public-Key-Signature',
    in: 'header',
    required: true,
    description: 'Base64 DER ECDSA P-256 SHA-256 signature of the raw body.',
    schema: { type: 'string' },
  },
];

/** Only with SECRET_SCANNING_KEYS_URL set; otherwise the path is the ordinary 404. */
export const secretScanningPaths: Record<string, Schema> = {
  '/api/v1/secret-scanning/reports': {
    post: operation({
      tag: 'Leak reports',
      operationId: 'reportLeakedKeys',
      summary: "Leaked tokens from a secret scanner (GitHub's partner format); active keys among them are revoked",
      description:
        'Exists only when `SECRET_SCANNING_KEYS_URL` is set (otherwise 404 `route-not-found`). Authenticated by the signature over the raw body, not by a JWT. ' +
        'The body is at most 1 MiB (413 before the signature is checked) and never inflated (415 for a compressed one).',
      security: [{ scannerSignature: [] }],
      parameters: signatureHeaders,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'array', items: schemaRef(LeakReportEntryDto), maxItems: MAX_REPORTS } } },
      },
      ok: { 200: json('One verdict per reported token, in request order.', { type: 'array', items: schemaRef(LeakVerdictDto) }, noStore) },
      errors: [400, 401, 404, 413, 415, 503],
    }),
  },
};

const methodNotAllowed = (method: string): Schema =>
  operation({
    tag: 'Introspection',
    operationId: `introspect${method}`,
    summary: `${method.toUpperCase()}: not served (405, Allow: POST)`,
    ok: {},
    errors: [401, 405],
  });

/** RFC 7662 for keygate's keys. */
export const introspectionPaths: Record<string, Schema> = {
  '/oauth/introspect': {
    post: operation({
      tag: 'Introspection',
      operationId: 'introspect',
      summary: 'Token introspection (RFC 7662), for admins',
      description:
        `Order of checks: JWT (401), the body's format (415, or 413 past ${MAX_FORM_BYTES} bytes or 10 parameters), admin (403), \`token\` (400). ` +
        'Unknown, malformed, revoked and expired keys all answer `{"active":false}`. Not a use of the key: `last_used_at`, rate limit and quota are untouched.',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: schemaRef(IntrospectionFormDto) },
        },
      },
      ok: {
        200: json(
          'The key, or only `active: false`.',
          { oneOf: [schemaRef(InactiveIntrospectionDto), schemaRef(ActiveIntrospectionDto)] },
          noStore,
        ),
      },
      errors: [400, 401, 403, 413, 415, 503],
    }),
    get: methodNotAllowed('get'),
    put: methodNotAllowed('put'),
    patch: methodNotAllowed('patch'),
    delete: methodNotAllowed('delete'),
  },
};

export const documentPaths: Record<string, Schema> = {
  '/api/v1/openapi.json': {
    get: operation({
      tag: 'Reference',
      operationId: 'openApiDocument',
      summary: 'This document (public)',
      security: [],
      ok: {
        200: json(
          'OpenAPI 3.1.',
          { type: 'object', required: ['openapi', 'paths'] },
          {
            ETag: { description: 'Changes with the document.', schema: { type: 'string' } },
            'Cache-Control': { description: '`public, max-age=300`.', schema: { type: 'string' } },
          },
        ),
        304: noContent('Not modified: the `If-None-Match` ETag is current.'),
      },
      errors: [],
    }),
  },
};
