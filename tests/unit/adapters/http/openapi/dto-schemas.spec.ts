import { IsString } from 'class-validator';
import { allowedFields } from '../../../../../src/adapters/http/dto/body-fields';
import { Nested, OptionalNullable } from '../../../../../src/adapters/http/dto/wire-decorators';
import { dtoSchemas, schemaRef } from '../../../../../src/adapters/http/openapi/dto-schemas';
import { openApiDocument } from '../../../../../src/adapters/http/openapi/openapi-document';
import { ValidationError } from '../../../../../src/domain/errors';

class ProbeInnerDto {
  @IsString({ message: 'must be a string' }) label!: string;
}

class ProbeOuterDto {
  @IsString({ message: 'must be a string' }) name!: string;
  @OptionalNullable() @Nested(() => ProbeInnerDto, () => 'must be an object or null') inner?: ProbeInnerDto | null;
}

describe('schemas generated from DTO classes', () => {
  const schemas = dtoSchemas();

  it('are named by the class without its Dto suffix, closed, and reference nested DTOs by that name', () => {
    expect(schemas.ProbeOuter).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        inner: { anyOf: [{ $ref: '#/components/schemas/ProbeInner' }, { type: 'null' }] },
      },
      required: ['name'],
    });
    expect(schemas.ProbeInner).toMatchObject({ additionalProperties: false, required: ['label'] });
    expect(schemaRef(ProbeOuterDto)).toEqual({ $ref: '#/components/schemas/ProbeOuter' });
  });

  it('check a body by the same decorators, naming a nested field by its path', () => {
    let caught: unknown;
    try {
      allowedFields(ProbeOuterDto, { name: 'n', inner: { label: 1, extra: true } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).errors).toEqual([
      { field: 'inner.extra', message: 'is not a known field' },
      { field: 'inner.label', message: 'must be a string' },
    ]);
  });

  it('in the served document, name every schema a $ref points at, and close every object but a leak report entry', () => {
    const served = (openApiDocument.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    const refs = JSON.stringify(openApiDocument).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    expect(refs.map((ref) => ref.split('/').pop()).filter((name) => !(name! in served))).toEqual([]);
    const open = Object.entries(served).filter(([, schema]) => schema.type === 'object' && schema.additionalProperties !== false);
    expect(open.map(([name]) => name)).toEqual(['LeakReportEntry']);
  });
});
