/** A JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it. */
export type Schema = Record<string, unknown>;

export function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A closed object: every property listed is required unless named in
 * `optional`, and no other property may appear, so a field the code adds
 * without the document fails the drift check.
 */
export function object(properties: Record<string, Schema>, optional: readonly string[] = []): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

export function nullable(schema: Schema): Schema {
  return { anyOf: [schema, { type: 'null' }] };
}

export function arrayOf(items: Schema, more: Schema = {}): Schema {
  return { type: 'array', items, ...more };
}

export const uuid: Schema = { type: 'string', format: 'uuid' };
export const timestamp: Schema = { type: 'string', format: 'date-time' };
export const sha256Hex: Schema = { type: 'string', pattern: '^[0-9a-f]{64}$' };
