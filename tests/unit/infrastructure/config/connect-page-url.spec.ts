import { loadConfig } from '../../../../src/infrastructure/config/config';
import { connectPageUrl } from '../../../../src/infrastructure/config/connect-page-url';
import { connectionCallbackUrl } from '../../../../src/infrastructure/config/connection-callback-url';

const AS = 'https://as.example.com';
const PROD = {
  NODE_ENV: 'production',
  JWT_JWKS_URI: 'https://idp/jwks',
  JWT_ISSUER: 'i',
  JWT_AUDIENCE: 'a',
  SECRETS_KEY: 'A'.repeat(43) + '=',
};

describe('PUBLIC_URL', () => {
  it('is an origin: a path, query, fragment or credentials are refused, and https in production', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://keygate.example.com/' }).publicUrl).toBe('https://keygate.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).publicUrl).toBe('http://localhost:8080');
    for (const bad of [
      'https://k.example.com/keygate',
      'https://k.example.com/?a=1',
      'https://k.example.com/#x',
      'https://u:p@k.example.com',
      'ftp://k',
    ])
      expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ ...PROD, PUBLIC_URL: 'http://k.example.com' })).toThrow(/PUBLIC_URL must hold https/);
    expect(loadConfig({ ...PROD, PUBLIC_URL: 'https://k.example.com' }).publicUrl).toBe('https://k.example.com');
  });

  it("defaults to MCP_RESOURCE_URL's base, /mcp taken off", () => {
    const oauth = (resource: string) => loadConfig({ MCP_RESOURCE_URL: resource, MCP_AUTHORIZATION_SERVERS: AS }).publicUrl;
    expect(oauth('https://keygate.example.com/mcp')).toBe('https://keygate.example.com');
    expect(oauth('https://example.com/keygate/mcp/')).toBe('https://example.com/keygate');
    expect(
      loadConfig({ PUBLIC_URL: 'https://a.example', MCP_RESOURCE_URL: 'https://b.example/mcp', MCP_AUTHORIZATION_SERVERS: AS }).publicUrl,
    ).toBe('https://a.example');
    expect(loadConfig({}).publicUrl).toBeNull();
  });
});

describe('connectPageUrl', () => {
  it('is under the public URL when there is one, else a path on the host the client reached', () => {
    expect(connectPageUrl(loadConfig({ PUBLIC_URL: 'https://keygate.example.com' }))('s-1')).toBe(
      'https://keygate.example.com/console/#/servers/s-1/connect',
    );
    expect(connectPageUrl(loadConfig({}))('s-1')).toBe('/console/#/servers/s-1/connect');
  });
});

describe('connectionCallbackUrl', () => {
  it("is the console's callback page under the public URL, never anything a request names", () => {
    expect(connectionCallbackUrl(loadConfig({ PUBLIC_URL: 'https://keygate.example.com' }))).toBe(
      'https://keygate.example.com/console/connections/callback',
    );
  });

  it('in development without a public URL is http://localhost:PORT; with PORT=0 or in production, none', () => {
    expect(connectionCallbackUrl(loadConfig({}))).toBe('http://localhost:8080/console/connections/callback');
    expect(connectionCallbackUrl(loadConfig({ PORT: '9000' }))).toBe('http://localhost:9000/console/connections/callback');
    expect(connectionCallbackUrl(loadConfig({ PORT: '0' }))).toBeNull();
    expect(connectionCallbackUrl(loadConfig(PROD))).toBeNull();
  });
});
