import { RevokeInput, UpstreamAuthorization } from '../../../../../../src/application/ports/upstream-authorization.port';
import { SERVERS } from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { DisconnectMcpServer } from '../../../../../../src/application/use-cases/gateway/mcp-connections/disconnect-mcp-server.use-case';
import { McpServerCaller } from '../../../../../../src/application/use-cases/gateway/mcp-servers/mcp-server-caller';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryUnitOfWork } from '../../../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../../../mothers/actor.mother';

const grant = {
  tokens: { accessToken: 'at-1', refreshToken: 'rt-1', scopes: [], tokenType: 'Bearer' },
  client: { issuer: 'https://as.example', clientId: 'c', tokenEndpointAuth: 'none' as const, source: 'dynamic' as const },
  authorizationServer: {
    issuer: 'https://as.example',
    authorizationEndpoint: 'https://as.example/auth',
    tokenEndpoint: 'https://as.example/token',
    revocationEndpoint: 'https://as.example/revoke',
    clientIdMetadataDocumentSupported: false,
    issParameterSupported: false,
  },
  resource: 'https://files.example.com/mcp',
};

async function makeSut(revoke: (input: RevokeInput) => Promise<{ revoked: boolean }>) {
  const clock = new FixedClock();
  const store = new InMemoryResourceStore();
  const connections = new InMemoryMcpConnectionStore(() => clock.now());
  const work = new InMemoryUnitOfWork({ records: store, connections });
  const alice = ActorMother.user();
  const id = (await store.create(alice.userId, SERVERS, { name: 'files', url: 'https://files.example.com/mcp', auth: { type: 'oauth' } }))
    .id;
  await connections.saveGrant(alice.userId, id, grant);
  const sut = new DisconnectMcpServer(work, clock, { revoke } as unknown as UpstreamAuthorization);
  const caller: McpServerCaller = { kind: 'user', actor: alice };
  return { sut, connections, audit: work.audit, alice, id, caller };
}

describe('DisconnectMcpServer of an oauth connection', () => {
  it('revokes the refresh token at the authorization server, then forgets the connection', async () => {
    const revoked: RevokeInput[] = [];
    const { sut, connections, audit, alice, id, caller } = await makeSut(async (input) => (revoked.push(input), { revoked: true }));
    await sut.execute({ caller, id });
    expect(revoked).toEqual([expect.objectContaining({ token: 'rt-1', tokenTypeHint: 'refresh_token', client: grant.client })]);
    expect(await connections.find(alice.userId, id)).toBeNull();
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.revoked']);
  });

  it('forgets the connection even when the authorization server cannot be reached', async () => {
    const { sut, connections, audit, alice, id, caller } = await makeSut(() => Promise.reject(new Error('unreachable')));
    await sut.execute({ caller, id });
    expect(await connections.find(alice.userId, id)).toBeNull();
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.revoked']);
  });
});
