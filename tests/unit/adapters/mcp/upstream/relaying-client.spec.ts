import { relayingClient } from '../../../../../src/adapters/mcp/upstream/relaying-client';

/** The SDK v2 client's JSON Schema validator (AjvJsonSchemaValidator): its 2020-12 engine, once built, in `_ajv`. */
type Validator = { _ajv?: unknown; getValidator(schema: object): (input: unknown) => { valid: boolean } };

describe('relayingClient', () => {
  // Every upstream contact is a new Client, and keygate's never validates a tool's output schema.
  it('builds no JSON Schema validator (Ajv) until one is asked for', () => {
    const client = relayingClient({ sampling: {} }, () => undefined);
    const validator = (client as unknown as { _jsonSchemaValidator: Validator })._jsonSchemaValidator;
    expect(validator._ajv).toBeUndefined();
    const validate = validator.getValidator({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    expect(validate({ n: 1 }).valid).toBe(true);
    expect(validate({}).valid).toBe(false);
    expect(validator._ajv).toBeDefined();
  });
});
