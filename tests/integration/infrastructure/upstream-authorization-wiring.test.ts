import { DataSource } from 'typeorm';
import { UpstreamAuthorization } from '../../../src/application/ports/upstream-authorization.port';
import { UpstreamRefusal } from '../../../src/application/ports/upstream-refusal';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { buildContainer } from '../../../src/infrastructure/di/container';
import { TOKENS } from '../../../src/infrastructure/di/tokens';
import { OAuthAuthorizationServer } from '../../support/oauth-authorization-server';
import { startAuthorizationServer, startProtectedResource } from '../../support/oauth-client-fixture';
import { ProtectedResource } from '../../support/protected-resource';

jest.setTimeout(30_000);

let as: OAuthAuthorizationServer;
let resource: ProtectedResource;
beforeAll(async () => {
  as = await startAuthorizationServer();
  resource = await startProtectedResource(as);
});
afterAll(async () => {
  await resource?.stop();
  await as?.stop();
});

/** The OAuth client as the service's container builds it from this environment (no database needed to build it). */
function clientFor(env: Record<string, string>): UpstreamAuthorization {
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://unused/unused', ...env });
  const database = { dataSource: {} as DataSource, close: async () => undefined };
  return buildContainer({ config, database }).get<UpstreamAuthorization>(TOKENS.UpstreamAuthorization);
}

describe('the OAuth client as wired', () => {
  it('reaches an authorization server the upstream allowlist admits', async () => {
    const found = await clientFor({ MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' }).discover(`${resource.origin}/mcp`);
    expect(found.authorizationServer.issuer).toBe(as.issuer);
    expect(found.resource).toBe(`${resource.origin}/mcp`);
  });

  it('is refused an address the upstream guard refuses, as the upstream would be', async () => {
    const refused = await clientFor({})
      .discover(`${resource.origin}/mcp`)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UpstreamRefusal);
  });
});
