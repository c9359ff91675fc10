import { Request } from 'express';
import { forwardedMcpRequestOf } from '../../../../../src/adapters/http/forward-auth/forwarded-mcp-request';
import { ValidationError } from '../../../../../src/domain/errors';

const MODERN = { 'mcp-protocol-version': '2026-07-28' };
const req = (headers: Record<string, string | string[]>, query: Record<string, unknown> = {}) => ({ headers, query }) as unknown as Request;
const field = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors[0].field;
    throw error;
  }
  return undefined;
};

describe('forwardedMcpRequestOf', () => {
  it('is null without a server, whatever Mcp-* headers came: /authz as before', () => {
    expect(forwardedMcpRequestOf(req({ 'mcp-method': 'tools/call' }))).toBeNull();
    expect(forwardedMcpRequestOf(req({ 'mcp-protocol-version': '2025-06-18', 'mcp-method': 'tools/call' }))).toBeNull();
  });

  it('takes the server from the query or the header, and refuses two different ones', () => {
    const headers = { ...MODERN, 'mcp-method': 'tools/list' };
    expect(forwardedMcpRequestOf(req(headers, { server: 'files' }))).toEqual({ server: 'files', method: 'tools/list' });
    expect(forwardedMcpRequestOf(req({ ...headers, 'x-keygate-mcp-server': 'files' }))).toEqual({ server: 'files', method: 'tools/list' });
    expect(forwardedMcpRequestOf(req({ ...headers, 'x-keygate-mcp-server': 'files' }, { server: 'files' }))).toEqual({
      server: 'files',
      method: 'tools/list',
    });
    expect(field(() => forwardedMcpRequestOf(req({ ...headers, 'x-keygate-mcp-server': 'docs' }, { server: 'files' })))).toBe('server');
    expect(field(() => forwardedMcpRequestOf(req(headers, { server: ['files', 'docs'] })))).toBe('server');
    expect(field(() => forwardedMcpRequestOf(req(headers, { server: '' })))).toBe('server');
  });

  it.each([undefined, '2025-11-25', '2026-07-27', 'DRAFT-2026-v1', '2026-07-28, 2026-07-28', ''])(
    'refuses MCP-Protocol-Version %p, whose servers need not check the headers',
    (version) => {
      const headers: Record<string, string> = { 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
      if (version !== undefined) headers['mcp-protocol-version'] = version;
      expect(field(() => forwardedMcpRequestOf(req(headers, { server: 'files' })))).toBe('MCP-Protocol-Version');
    },
  );

  it('takes 2026-07-28 and later revisions', () => {
    for (const version of ['2026-07-28', '2027-01-15']) {
      expect(
        forwardedMcpRequestOf(
          req({ 'mcp-protocol-version': version, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, { server: 'files' }),
        ),
      ).toEqual({ server: 'files', method: 'tools/call', name: 'echo' });
    }
  });

  it('needs one Mcp-Method', () => {
    expect(field(() => forwardedMcpRequestOf(req(MODERN, { server: 'files' })))).toBe('Mcp-Method');
    expect(field(() => forwardedMcpRequestOf(req({ ...MODERN, 'mcp-method': 'tools/call, tools/list' }, { server: 'files' })))).toBe(
      'Mcp-Method',
    );
  });

  it('needs a decodable, non-empty Mcp-Name on a tools/call, and decodes the base64 form', () => {
    const call = { ...MODERN, 'mcp-method': 'tools/call' };
    for (const name of [undefined, '', '=?base64?not base64?=', '=?base64?/w==?=']) {
      const headers: Record<string, string> = { ...call };
      if (name !== undefined) headers['mcp-name'] = name;
      expect(field(() => forwardedMcpRequestOf(req(headers, { server: 'files' })))).toBe('Mcp-Name');
    }
    const encoded = `=?base64?${Buffer.from('résumé').toString('base64')}?=`;
    expect(forwardedMcpRequestOf(req({ ...call, 'mcp-name': encoded }, { server: 'files' }))).toEqual({
      server: 'files',
      method: 'tools/call',
      name: 'résumé',
    });
    // Other methods need no name and keep none.
    expect(forwardedMcpRequestOf(req({ ...MODERN, 'mcp-method': 'prompts/get' }, { server: 'files' }))).toEqual({
      server: 'files',
      method: 'prompts/get',
    });
  });
});
