/** A JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it. */
export type Schema = Record<string, unknown>;

/** What the paths files still spell themselves: query parameters and lists of a DTO's schema. Bodies are DTOs (dto-schemas.ts). */
export function arrayOf(items: Schema, more: Schema = {}): Schema {
  return { type: 'array', items, ...more };
}

export const uuid: Schema = { type: 'string', format: 'uuid' };
export const timestamp: Schema = { type: 'string', format: 'date-time' };
