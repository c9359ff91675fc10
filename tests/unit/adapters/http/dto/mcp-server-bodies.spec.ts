import { allowedFields } from '../../../../../src/adapters/http/dto/body-fields';
import { ApproveToolsDto, McpServerInputDto, McpServerUpdateDto } from '../../../../../src/adapters/http/dto/mcp-server.dto';
import { ValidationError } from '../../../../../src/domain/errors';

function errorsOf(run: () => unknown): { field: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors.map(({ field, message }) => ({ field, message }));
    throw error;
  }
  throw new Error('no ValidationError');
}

describe("the MCP server DTOs check the wire shape at the edge, with the mcp_servers policy's wording", () => {
  it('names each field of a create body whose type is wrong', () => {
    const body = { name: 7, headers: { A: 1 }, tool_scopes: [], resource_scopes: 'x', prompt_scopes: null };
    expect(errorsOf(() => allowedFields(McpServerInputDto, body))).toEqual([
      { field: 'name', message: 'is required: 1 to 32 of a-z, 0-9 and -' },
      { field: 'url', message: 'is required: an http or https URL of a Streamable HTTP MCP endpoint' },
      { field: 'headers', message: 'must be an object of header names to string values' },
      { field: 'tool_scopes', message: 'must map tool names to arrays of scopes' },
      { field: 'resource_scopes', message: 'must map resource URIs or URI templates to arrays of scopes' },
      { field: 'prompt_scopes', message: 'must map prompt names to arrays of scopes' },
    ]);
  });

  it('takes any one field in a PATCH, approve_tools among them, and still refuses a name of the wrong type', () => {
    expect(allowedFields(McpServerUpdateDto, { approve_tools: ['echo'] })).toMatchObject({ approve_tools: ['echo'] });
    expect(allowedFields(McpServerUpdateDto, { url: 'https://example.com/mcp' })).toMatchObject({ url: 'https://example.com/mcp' });
    expect(errorsOf(() => allowedFields(McpServerUpdateDto, { name: null }))).toEqual([
      { field: 'name', message: 'is required: 1 to 32 of a-z, 0-9 and -' },
    ]);
    expect(errorsOf(() => allowedFields(ApproveToolsDto, { tools: ['echo'], all: true }))).toEqual([
      { field: 'all', message: 'is not a known field' },
    ]);
  });

  it('takes auth as an object, left to the policy to check field by field, and refuses anything else naming auth', () => {
    const auth = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
    expect(allowedFields(McpServerInputDto, { name: 'a', url: 'https://example.com/mcp', auth })).toMatchObject({ auth });
    expect(errorsOf(() => allowedFields(McpServerUpdateDto, { auth: 'oauth' }))).toEqual([
      { field: 'auth', message: 'must be an object whose type is one of static, oauth, token_exchange, user_secret' },
    ]);
  });
});
