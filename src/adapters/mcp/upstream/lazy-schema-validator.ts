import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The SDK client's JSON Schema validator, its Ajv built on first use only.
 * A Client builds one in its constructor otherwise (Ajv with its formats,
 * ~0.3 ms of CPU), and every upstream contact is a new Client, while keygate's
 * never validates a schema (it calls request(), not callTool()). Per client,
 * not shared: what one compiles is not kept past its contact.
 */
export class LazySchemaValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (this.ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
  }
}
