import { canonicalResource, resourceCovers } from '../../../../src/adapters/oauth-client/resource-uri';

describe('canonicalResource', () => {
  it.each([
    ['HTTPS://MCP.Example.COM/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com:443/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/', 'https://mcp.example.com'],
    ['https://mcp.example.com', 'https://mcp.example.com'],
    ['https://mcp.example.com/mcp#section', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com:8443/server/mcp', 'https://mcp.example.com:8443/server/mcp'],
    ['http://127.0.0.1:3000/mcp/', 'http://127.0.0.1:3000/mcp/'],
    ['https://mcp.example.com/?tenant=a', 'https://mcp.example.com/?tenant=a'],
  ])('%s is %s', (input, canonical) => {
    expect(canonicalResource(input)).toBe(canonical);
  });

  it.each(['mcp.example.com/mcp', 'ftp://mcp.example.com/', 'https://user:pw@mcp.example.com/', ''])('refuses %s', (input) => {
    expect(canonicalResource(input)).toBeNull();
  });
});

describe('resourceCovers', () => {
  it.each([
    ['https://a.example/mcp', 'https://a.example/mcp', true],
    ['https://a.example', 'https://a.example/mcp', true],
    ['https://a.example/mcp', 'https://a.example/mcp/tools', true],
    ['https://a.example/mcp/', 'https://a.example/mcp', true],
    ['https://a.example/mcp', 'https://a.example/mcpx', false],
    ['https://a.example/other', 'https://a.example/mcp', false],
    ['https://b.example/mcp', 'https://a.example/mcp', false],
    ['http://a.example/mcp', 'https://a.example/mcp', false],
  ])('%s covers %s: %s', (resource, endpoint, covers) => {
    expect(resourceCovers(resource, endpoint)).toBe(covers);
  });
});
