import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { SCOPE_CATALOG } from '../../../domain/scope';
import { DtoClass, schemaName } from '../dto/wire-decorators';
import { Schema } from './schema-parts';

/**
 * components.schemas generated from the DTO classes' class-validator
 * metadata: the decorators that check a request body also describe it, and
 * a response DTO's describe what its presenter sends. Every DTO is closed
 * (no field beyond its own) unless its class says otherwise, so a field the code adds without its DTO fails
 * the drift check. The paths files import the DTOs they name, which loads
 * every class before this runs.
 */
export function dtoSchemas(): Record<string, Schema> {
  const generated = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/' }) as Record<string, Schema>;
  const schemas: [string, Schema][] = [
    ...Object.entries(generated).map(([name, schema]): [string, Schema] => [
      schemaName({ name }),
      { additionalProperties: false, ...schema },
    ]),
    // The one wire shape that is not an object: a scope of the catalog, which the DTOs' scope lists name.
    ['Scope', { enum: SCOPE_CATALOG.map(({ scope }) => scope) }],
  ];
  // By name, not by the order modules happen to load in: the generated console types stay put when imports move.
  return Object.fromEntries(schemas.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A reference to a DTO's generated schema, by its class: a renamed class cannot leave a dangling name. */
export function schemaRef(Dto: DtoClass): Schema {
  return { $ref: `#/components/schemas/${schemaName(Dto)}` };
}
