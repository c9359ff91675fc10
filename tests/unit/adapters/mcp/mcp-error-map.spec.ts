import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { RpcError, toMcpError } from '../../../../src/adapters/mcp/mcp-error-map';
import { UnknownToolError, ValidationError } from '../../../../src/domain/errors';

function makeSut() {
  const logged: unknown[] = [];
  return { logged, map: (error: unknown) => toMcpError(error, (e) => logged.push(e)) };
}

describe('toMcpError', () => {
  it('answers a validation error with -32602, its fields in data', () => {
    const { map } = makeSut();
    const error = map(ValidationError.single('agent_scopes', 'must hold at most 12 scopes'));
    expect(error).toMatchObject({ code: -32602, message: 'agent_scopes: must hold at most 12 scopes', data: [{ field: 'agent_scopes', message: 'must hold at most 12 scopes' }] });
  });

  it('quotes at most 64 characters of an unknown tool name', () => {
    const { map } = makeSut();
    const error = map(new UnknownToolError('t'.repeat(1_000_000)));
    expect(error).toMatchObject({ code: -32602, message: `Unknown tool: ${'t'.repeat(63)}…` });
  });

  it('cuts an McpError from anywhere down to the error bounds', () => {
    const { map } = makeSut();
    const error = map(new McpError(-32000, 'm'.repeat(1_000_000), new Array(100_000).fill({ a: 1 })));
    expect(error).toBeInstanceOf(RpcError);
    expect(error.message.length).toBeLessThanOrEqual(200);
    expect(error.data).toHaveLength(20);
  });

  it('hides and logs anything unexpected as -32603', () => {
    const { map, logged } = makeSut();
    const failure = new Error('connection string postgres://secret');
    expect(map(failure)).toMatchObject({ code: -32603, message: 'Internal error' });
    expect(logged).toEqual([failure]);
  });
});
