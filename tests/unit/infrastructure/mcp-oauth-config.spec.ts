import { loadConfig } from '../../../src/infrastructure/config/config';

const PROD = {
  NODE_ENV: 'production',
  JWT_JWKS_URI: 'https://idp/jwks',
  JWT_ISSUER: 'https://idp/',
  JWT_AUDIENCE: 'keygate',
  SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('MCP_RESOURCE_URL and MCP_AUTHORIZATION_SERVERS', () => {
  it('leave OAuth off when both are unset', () => {
    expect(loadConfig({}).mcp.oauth).toBeNull();
  });

  it('turn it on together, the issuers trimmed', () => {
    expect(
      loadConfig({ MCP_RESOURCE_URL: 'https://kg.example/mcp', MCP_AUTHORIZATION_SERVERS: 'https://a.example/ , https://b.example' }).mcp
        .oauth,
    ).toEqual({ resourceUrl: 'https://kg.example/mcp', authorizationServers: ['https://a.example/', 'https://b.example'] });
  });

  it.each([
    ['one without the other', { MCP_RESOURCE_URL: 'https://kg.example/mcp' }, /set together/],
    ['the other without the one', { MCP_AUTHORIZATION_SERVERS: 'https://a.example/' }, /set together/],
    ['a resource that is no URL', { MCP_RESOURCE_URL: 'kg/mcp', MCP_AUTHORIZATION_SERVERS: 'https://a.example/' }, /MCP_RESOURCE_URL/],
    [
      'a resource with a fragment',
      { MCP_RESOURCE_URL: 'https://kg.example/mcp#x', MCP_AUTHORIZATION_SERVERS: 'https://a.example/' },
      /fragment/,
    ],
    [
      'a resource with a query',
      { MCP_RESOURCE_URL: 'https://kg.example/mcp?x=1', MCP_AUTHORIZATION_SERVERS: 'https://a.example/' },
      /query/,
    ],
    [
      'an issuer that is no URL',
      { MCP_RESOURCE_URL: 'https://kg.example/mcp', MCP_AUTHORIZATION_SERVERS: 'keygate-dev' },
      /MCP_AUTHORIZATION_SERVERS/,
    ],
    [
      'eleven issuers',
      {
        MCP_RESOURCE_URL: 'https://kg.example/mcp',
        MCP_AUTHORIZATION_SERVERS: Array.from({ length: 11 }, (_, i) => `https://i${i}.example`).join(','),
      },
      /at most 10/,
    ],
  ])('refuse %s', (_case, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('take http outside production only', () => {
    const env = { MCP_RESOURCE_URL: 'http://localhost:8080/mcp', MCP_AUTHORIZATION_SERVERS: 'http://localhost:9000/' };
    expect(loadConfig(env).mcp.oauth?.resourceUrl).toBe('http://localhost:8080/mcp');
    expect(() => loadConfig({ ...PROD, ...env })).toThrow(/https/);
  });
});
