import { PROBLEM_CONTENT_TYPE } from '../../edge/problem';
import { ProblemDto } from '../dto/problem.dto';
import { schemaRef } from './dto-schemas';
import { Schema } from './schema-parts';

export type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 503;

const retryAfter: Schema = { description: 'Seconds to wait before trying again.', schema: { type: 'string', pattern: '^[0-9]+$' } };

interface ProblemAnswer {
  name: string;
  description: string;
  headers?: Record<string, Schema>;
}

const ANSWERS: Record<ProblemStatus, ProblemAnswer> = {
  400: {
    name: 'BadRequest',
    description:
      '`validation-failed` (with `errors` naming each field or parameter), `malformed-json`, `malformed-path` (a bad percent-encoding) or `bad-request` (a body that could not be read).',
  },
  401: {
    name: 'Unauthorized',
    description:
      '`invalid-access-token`: no, a malformed, expired or otherwise refused JWT (the detail says which in general terms). `invalid-signature` on the leak report route.',
    headers: { 'WWW-Authenticate': { description: 'RFC 6750 challenge (JWT routes only).', schema: { type: 'string' } } },
  },
  403: { name: 'Forbidden', description: '`forbidden`: the caller is not an admin, or names another user without being one.' },
  404: {
    name: 'NotFound',
    description: "`not-found`: unknown, ended or another user's resource; `route-not-found` for a method the path does not serve.",
  },
  405: {
    name: 'MethodNotAllowed',
    description: '`method-not-allowed`.',
    headers: { Allow: { description: 'The methods served.', schema: { type: 'string' } } },
  },
  409: { name: 'Conflict', description: '`conflict`: a duplicate name, a limit reached, or a state that forbids the change.' },
  413: { name: 'ContentTooLarge', description: "`body-too-large`: the body exceeds the route's limit." },
  415: { name: 'UnsupportedMediaType', description: "`unsupported-media-type`: the body's media type or encoding is not the route's." },
  503: {
    name: 'ServiceUnavailable',
    description:
      '`database-unavailable` (PostgreSQL cannot be reached, `Retry-After: 1`); on the leak report route `signing-keys-unavailable`.',
    headers: { 'Retry-After': retryAfter },
  },
};

function problemResponse({ description, headers }: ProblemAnswer): Schema {
  return { description, ...(headers && { headers }), content: { [PROBLEM_CONTENT_TYPE]: { schema: schemaRef(ProblemDto) } } };
}

/** components.responses: one shared answer per error status. */
export const problemResponseComponents: Record<string, Schema> = Object.fromEntries(
  Object.values(ANSWERS).map((answer) => [answer.name, problemResponse(answer)]),
);

export function problemResponses(statuses: readonly ProblemStatus[]): Record<string, Schema> {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${ANSWERS[status].name}` }]));
}
