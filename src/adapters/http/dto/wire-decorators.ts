import { IS_UUID, IsObject, IsOptional, ValidateBy, ValidateIf, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { getMetadataSchema } from 'class-validator-jsonschema/build/decorators';
import { isoInstant } from '../../../application/use-cases/iso-instant';
import { isUuid } from '../../../domain/uuid';

export type PropertyDecorator = (target: object, property: string) => void;
type Schema = Record<string, unknown>;
export type DtoClass = new () => object;

/** The nested DTO class of each field that holds one, by the class that declares it. */
const nestedTypes = new Map<object, Map<string, () => DtoClass>>();

/** The name of a DTO's schema in components.schemas: its class name without the `Dto` suffix. */
export function schemaName(Dto: { name: string }): string {
  return Dto.name.replace(/Dto$/, '');
}

/** The nested DTO class a field holds, looked up along the class chain (an update DTO may extend a create DTO). */
export function nestedTypeOf(Dto: DtoClass, field: string): DtoClass | undefined {
  for (let type: object | null = Dto; type !== null && type !== Object; type = Object.getPrototypeOf(type) as object | null) {
    const found = nestedTypes.get(type)?.get(field);
    if (found) return found();
  }
  return undefined;
}

function all(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const decorate of decorators) decorate(target, property);
  };
}

/**
 * A step on a field's generated schema. class-validator-jsonschema keeps one
 * @JSONSchema per field, so each step wraps the one declared before it
 * (decorators apply bottom-up: the lowest line runs first).
 */
function schemaStep(step: (schema: Schema) => Schema): PropertyDecorator {
  return (target, property) => {
    const before = getMetadataSchema(target, property) as Schema | ((schema: Schema, options: never) => Schema);
    const wrapped = (schema: Schema, options: never) =>
      step(typeof before === 'function' ? before(schema, options) : { ...schema, ...before });
    JSONSchema(wrapped as never)(target, property);
  };
}

/** The schema of a component the DTOs do not generate (Scope), by name. */
export function componentRef(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A field the body may leave out; null is checked like any other value (the
 * use-case refuses or accepts it), so the schema does not admit it.
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/** A field the body may leave out or send as null; the schema admits null. */
export function OptionalNullable(): PropertyDecorator {
  return all(IsOptional(), NullableSchema());
}

/** A response field that may be null. */
export function NullableSchema(): PropertyDecorator {
  return schemaStep((schema) => ({ anyOf: [schema, { type: 'null' }] }));
}

/** An object of another DTO, checked field by field (unknown ones refused), named by path in errors. */
export function Nested(type: () => DtoClass, message?: (value: unknown) => string): PropertyDecorator {
  const remember: PropertyDecorator = (target, property) => {
    const fields = nestedTypes.get(target.constructor) ?? new Map<string, () => DtoClass>();
    nestedTypes.set(target.constructor, fields.set(property, type));
  };
  const options = message && { message: ({ value }: { value: unknown }) => message(value) };
  // IsObject registers first, so it is checked first and stops a non-object before the nested checks.
  return all(
    IsObject(options),
    ValidateNested(),
    remember,
    schemaStep(() => componentRef(schemaName(type()))),
  );
}

/** An ISO-8601 instant with a time zone on a real calendar day, as the use-cases read it; the schema says date-time. */
export function Timestamp(message?: string): PropertyDecorator {
  return all(
    schemaStep(() => ({ type: 'string', format: 'date-time' })),
    ValidateBy(
      { name: 'isTimestamp', validator: { validate: (value) => typeof value === 'string' && isoInstant(value) !== null } },
      { message },
    ),
  );
}

/** A UUID as the domain reads it; named as class-validator's own, so the schema says format uuid. */
export function Uuid(message?: string): PropertyDecorator {
  return ValidateBy({ name: IS_UUID, validator: { validate: (value) => isUuid(value) } }, { message });
}

/** Overrides the generated schema of a field with one written here (a map, a union, a reference by name). */
export function SchemaOf(schema: Schema): PropertyDecorator {
  return schemaStep(() => schema);
}

/** Adds keywords (a description, a default) to a field's generated schema. */
export function Described(more: Schema): PropertyDecorator {
  return schemaStep((schema) => ({ ...schema, ...more }));
}
