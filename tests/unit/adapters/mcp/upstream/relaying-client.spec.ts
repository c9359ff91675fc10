import * as ajvProvider from '@modelcontextprotocol/sdk/validation/ajv';
import { relayingClient } from '../../../../../src/adapters/mcp/upstream/relaying-client';

describe('relayingClient', () => {
  afterEach(() => jest.restoreAllMocks());

  // Every upstream contact is a new Client, and keygate's never validates a tool's output schema.
  it('builds no JSON Schema validator (Ajv) until one is asked for', () => {
    const Real = ajvProvider.AjvJsonSchemaValidator;
    // Called with new by the SDK: an implementation returning an instance makes that instance the result.
    const built = jest.spyOn(ajvProvider, 'AjvJsonSchemaValidator').mockImplementation(((...args: ConstructorParameters<typeof Real>) => new Real(...args)) as never);
    const client = relayingClient({ sampling: {} }, () => undefined);
    expect(built).not.toHaveBeenCalled();
    const validator = (client as unknown as { _jsonSchemaValidator: { getValidator(schema: object): (input: unknown) => { valid: boolean } } })._jsonSchemaValidator;
    const validate = validator.getValidator({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    expect(validate({ n: 1 }).valid).toBe(true);
    expect(validate({}).valid).toBe(false);
    expect(built).toHaveBeenCalledTimes(1);
  });
});
