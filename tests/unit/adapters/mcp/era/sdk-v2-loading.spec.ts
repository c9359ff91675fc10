import * as client from '@modelcontextprotocol/client';
import * as core from '@modelcontextprotocol/core';
import * as node from '@modelcontextprotocol/node';
import * as server from '@modelcontextprotocol/server';

/**
 * The v2 packages are ESM-first with a CommonJS build beside it; keygate's jest
 * runs CommonJS through swc and transforms only a few node_modules. This spec
 * fails if jest resolves them to the ESM build or cannot load one of them.
 */
describe('MCP SDK v2 packages under jest', () => {
  it('loads the CommonJS build of each package', () => {
    expect(typeof server.createMcpHandler).toBe('function');
    expect(typeof server.classifyInboundRequest).toBe('function');
    expect(typeof client.Client).toBe('function');
    expect(typeof core.JSONRPCMessageSchema.safeParse).toBe('function');
    expect(typeof node.toWebRequest).toBe('function');
    for (const name of ['server', 'client', 'core', 'node']) expect(require.resolve(`@modelcontextprotocol/${name}`)).toMatch(/[.]cjs$/);
  });

  it('classifies an initialize body as legacy', () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect(server.classifyInboundRequest({ httpMethod: 'POST', body })).toEqual({
      kind: 'legacy',
      reason: 'initialize',
      requestedVersion: '2025-11-25',
    });
  });

  it('classifies a body whose _meta names 2026-07-28 as modern', () => {
    const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const body = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta } };
    const outcome = server.classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: '2026-07-28',
      mcpMethodHeader: 'tools/list',
      body,
    });
    expect(outcome).toMatchObject({ kind: 'modern', messageKind: 'request', classification: { era: 'modern', revision: '2026-07-28' } });
  });
});
