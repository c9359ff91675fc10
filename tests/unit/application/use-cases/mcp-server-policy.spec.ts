import { MASK, MCP_SERVER_POLICY } from '../../../../src/application/use-cases/external-tools/mcp-server-policy';
import { ResourceRecord } from '../../../../src/domain/resource/resource-record';

const valid = { name: 'files-2', url: 'https://files.example.com/mcp', headers: { Authorization: 'Bearer x' }, tool_scopes: { read: ['projects:read'] } };

describe('MCP_SERVER_POLICY', () => {
  it('accepts a valid registration as given', () => {
    expect(MCP_SERVER_POLICY.check(valid)).toEqual(valid);
  });

  it.each([
    [{ ...valid, name: 'Files' }, /data.name/], [{ ...valid, name: 'x'.repeat(33) }, /data.name/], [{ ...valid, url: 'file:///etc' }, /data.url/],
    [{ ...valid, headers: { a: 1 } }, /data.headers/], [{ ...valid, tool_scopes: { read: 'projects:read' } }, /tool_scopes.read/],
    [{ ...valid, tool_scopes: { read: ['projects:admin'] } }, /tool_scopes.read\[0\]/], [{ ...valid, extra: true }, /data.extra/],
  ])('refuses %j', (data, message) => {
    expect(() => MCP_SERVER_POLICY.check(data)).toThrow(message);
  });

  it('masks header values and keeps stored secrets when the mask comes back', () => {
    const record = { data: valid } as unknown as ResourceRecord;
    expect(MCP_SERVER_POLICY.mask(record)).toEqual({ ...valid, headers: { Authorization: MASK } });
    expect(MCP_SERVER_POLICY.merge(valid, { headers: { Authorization: MASK, 'X-New': 'n' } }).headers).toEqual({ Authorization: 'Bearer x', 'X-New': 'n' });
    expect(MCP_SERVER_POLICY.merge(valid, { url: 'https://other/mcp' })).toEqual({ ...valid, url: 'https://other/mcp' });
  });
});
