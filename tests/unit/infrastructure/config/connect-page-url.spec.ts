import { Config } from '../../../../src/infrastructure/config/config';
import { connectPageUrl } from '../../../../src/infrastructure/config/connect-page-url';

const withResource = (resourceUrl: string | null) =>
  ({ mcp: { oauth: resourceUrl === null ? null : { resourceUrl, authorizationServers: ['https://as.example.com'] } } }) as Pick<
    Config,
    'mcp'
  >;

describe('connectPageUrl', () => {
  it("is under MCP_RESOURCE_URL's base when it is set, /mcp taken off", () => {
    expect(connectPageUrl(withResource('https://keygate.example.com/mcp'))('s-1')).toBe(
      'https://keygate.example.com/console/#/servers/s-1/connect',
    );
    expect(connectPageUrl(withResource('https://example.com/keygate/mcp/'))('s-1')).toBe(
      'https://example.com/keygate/console/#/servers/s-1/connect',
    );
  });

  it('is a path on the host the client reached without it', () => {
    expect(connectPageUrl(withResource(null))('s-1')).toBe('/console/#/servers/s-1/connect');
  });
});
