import { Schema } from './schema-parts';
import { ProblemStatus, problemResponses } from './responses';

export interface OperationSpec {
  tag: string;
  operationId: string;
  summary: string;
  description?: string;
  parameters?: Schema[];
  requestBody?: Schema;
  /** The success answers, keyed by status. */
  ok: Record<string, Schema>;
  /** Every error status the route can answer, each with the problem body. */
  errors: readonly ProblemStatus[];
  /** Default: the user's JWT (the document's top-level security). */
  security?: Schema[];
}

/** One OpenAPI operation from its parts; the error answers are shared response objects. */
export function operation(spec: OperationSpec): Schema {
  return {
    tags: [spec.tag],
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    ...(spec.parameters && { parameters: spec.parameters }),
    ...(spec.requestBody && { requestBody: spec.requestBody }),
    ...(spec.security && { security: spec.security }),
    responses: { ...spec.ok, ...problemResponses(spec.errors) },
  };
}

export function json(description: string, schema: Schema, headers?: Record<string, Schema>): Schema {
  return { description, ...(headers && { headers }), content: { 'application/json': { schema } } };
}

export function noContent(description: string): Schema {
  return { description };
}

export function jsonBody(schema: Schema, required = true): Schema {
  return { required, content: { 'application/json': { schema } } };
}

export const idParameter: Schema = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'A UUID; anything else is a 400.',
  schema: { type: 'string' },
};

export function queryParameter(name: string, description: string, schema: Schema): Schema {
  return { name, in: 'query', required: false, description, schema };
}

export const noStore: Record<string, Schema> = {
  'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', const: 'no-store' } },
};
