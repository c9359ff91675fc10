import { OAuthGrant } from '../../../../../../src/application/ports/mcp-connection-store.port';
import { UpstreamReplyError } from '../../../../../../src/application/ports/upstream-content.port';
import { ToolListing } from '../../../../../../src/application/ports/upstream-mcp.port';
import { UpstreamCredentials } from '../../../../../../src/application/use-cases/gateway/external/upstream-credentials';
import { UpstreamToolDirectory } from '../../../../../../src/application/use-cases/gateway/external/upstream-tool-directory';
import {
  PER_USER_AUTH,
  reachableAsRegistered,
  SERVERS,
  toServer,
} from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { ConnectionRequiredError } from '../../../../../../src/domain/errors';
import { LruLoadingCache } from '../../../../../../src/adapters/mcp/upstream/lru-loading-cache';
import { FakeUpstreamMcp } from '../../../../../fakes/fake-upstream-mcp';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeToolPins } from '../../../../../support/call-tool-service';

const TOOLS = [{ name: 'echo', inputSchema: { type: 'object' } }];
const [ALICE, BOB] = ['alice', 'bob'];
const SECRET = 'sk-alice-SECRET';
const personal = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
const ALL = ScopeSetMother.of('mcp_servers:read', 'mcp_servers:write');

function makeSut() {
  const store = new InMemoryResourceStore();
  const upstream = new FakeUpstreamMcp();
  const connections = new InMemoryMcpConnectionStore();
  const logged: string[] = [];
  const directory = new UpstreamToolDirectory(
    store,
    upstream,
    new LruLoadingCache<ToolListing>({ maxEntries: 100, maxChars: 1_000_000, ttlMs: 60_000 }),
    (m) => logged.push(m),
    makeToolPins().pins,
    new UpstreamCredentials(connections, (id) => `https://keygate.example.com/console/#/servers/${id}/connect`),
  );
  const register = async (owner: string, name: string, extra: Record<string, unknown> = {}) => {
    const url = `https://${name}.example/mcp`;
    upstream.serve(url, { tools: TOOLS });
    return store.create(owner, SERVERS, { name, url, ...extra });
  };
  const names = async (userId: string) => (await directory.catalog(userId, ALL)).map((tool) => tool.name);
  return { store, upstream, connections, logged, directory, register, names };
}

describe("UpstreamCredentials: a user_secret server is reached with the calling user's own secret only", () => {
  it('without a connection: lists nothing and calls nothing upstream; the call is a ConnectionRequiredError naming the connect page', async () => {
    const { upstream, directory, register, names } = makeSut();
    const record = await register(ALICE, 'files', { auth: personal, headers: { 'X-Team': 't1' } });
    expect(await names(ALICE)).toEqual([]);
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    const failure = await directory.run(tool, {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionRequiredError);
    expect(failure).toMatchObject({
      server: 'files',
      connectUrl: `https://keygate.example.com/console/#/servers/${record.id}/connect`,
      message: `The MCP server files needs your own credential: connect to it at https://keygate.example.com/console/#/servers/${record.id}/connect, then call again`,
    });
    expect(upstream.contacts).toEqual([]);
    expect(upstream.headers).toEqual([]);
  });

  it("with the caller's connection: sends header: prefix + secret beside the record's headers, replacing one of the same name", async () => {
    const { upstream, connections, directory, register, names } = makeSut();
    const record = await register(ALICE, 'files', { auth: personal, headers: { 'X-Team': 't1', authorization: 'Bearer shared' } });
    await connections.saveSecret(ALICE, record.id, SECRET);
    expect(await names(ALICE)).toEqual(['files__echo']);
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    expect(await directory.run(tool, {})).toMatchObject({ kind: 'relayed' });
    expect(upstream.calls).toHaveLength(1);
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const headers of upstream.headers) expect(headers).toEqual({ 'X-Team': 't1', Authorization: `Bearer ${SECRET}` });
  });

  it("never sends one user's secret on another user's call, even for the owner's own server", async () => {
    const { upstream, connections, directory, register } = makeSut();
    const record = await register(ALICE, 'files', { auth: personal });
    await connections.saveSecret(ALICE, record.id, SECRET);
    // Records are per owner today, so Bob cannot name Alice's server; the rule holds for a tool resolved any way.
    expect(await directory.resolve(BOB, 'files__echo')).toBeNull();
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    const failure = await directory.run({ ...tool, callerId: BOB }, {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionRequiredError);
    expect((failure as Error).message).toMatch(/needs your own credential: connect to it at/);
    expect(upstream.contacts).toEqual([]);
    await connections.saveSecret(BOB, record.id, 'sk-bob');
    expect(await directory.run({ ...tool, callerId: BOB }, {})).toMatchObject({ kind: 'relayed' });
    expect(upstream.headers.every((headers) => headers.Authorization === 'Bearer sk-bob')).toBe(true);
  });

  it('keeps listings apart per user and connection: a disconnected user sees the pinned definitions only, a new connection lists afresh', async () => {
    const { upstream, connections, register, names } = makeSut();
    const record = await register(ALICE, 'files', { auth: personal });
    await connections.saveSecret(ALICE, record.id, SECRET);
    expect(await names(ALICE)).toEqual(['files__echo']);
    await connections.remove(ALICE, record.id);
    expect(await names(ALICE)).toEqual(['files__echo']);
    expect(upstream.listings).toHaveLength(1);
    await connections.saveSecret(ALICE, record.id, 'sk-alice-again');
    expect(await names(ALICE)).toEqual(['files__echo']);
    expect(upstream.listings).toHaveLength(2);
    expect(upstream.headers.at(-1)).toEqual({ Authorization: 'Bearer sk-alice-again' });
  });

  it('takes the secret out of an upstream error it echoes, in the answer and the log', async () => {
    const { upstream, connections, directory, register, logged } = makeSut();
    const record = await register(ALICE, 'files', { auth: personal });
    await connections.saveSecret(ALICE, record.id, SECRET);
    upstream.serve('https://files.example/mcp', {
      tools: TOOLS,
      callError: new UpstreamReplyError(-32000, `bad token ${SECRET} in Bearer ${SECRET}`),
    });
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    const outcome = await directory.run(tool, {});
    expect(outcome).toEqual({ kind: 'error', message: expect.stringMatching(/answered with an error: bad token \*+/) });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(logged.join('\n')).not.toContain(SECRET);
  });

  it('does not contact a token_exchange server for a caller without a subject token, nor without an exchanger', async () => {
    const { upstream, directory, register, names } = makeSut();
    const auth = { type: 'token_exchange', token_endpoint: 'https://as.example/t', audience: 'a', client_id: 'c' };
    await register(ALICE, 'files', { auth, headers: { Authorization: 'Bearer shared' } });
    expect(await names(ALICE)).toEqual([]);
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    expect(await directory.run(tool, {})).toEqual({
      kind: 'error',
      message:
        "The MCP server files takes the caller's own OAuth access token (token_exchange auth), and an API key has none: call it with an OAuth access token on /mcp",
    });
    expect(await directory.run({ ...tool, subjectToken: 'eyJ.a.b' }, {})).toEqual({
      kind: 'error',
      message: 'The MCP server files uses token_exchange auth, which is not set up here: it is not contacted',
    });
    expect(upstream.contacts).toEqual([]);
  });

  it('reaches a static server with its headers as ever', async () => {
    const { upstream, register, names } = makeSut();
    await register(ALICE, 'plain', { headers: { Authorization: 'Bearer shared' } });
    expect(await names(ALICE)).toEqual(['plain__echo']);
    expect(upstream.headers).toEqual([{ Authorization: 'Bearer shared' }]);
  });
});

describe('toServer outside UpstreamCredentials', () => {
  it("refuses a server whose credential is each user's own, so resources, prompts and streams never reach it with the record alone", async () => {
    const { register } = makeSut();
    const personalServer = await register(ALICE, 'files', { auth: personal, headers: { 'X-Team': 't1' } });
    const plain = await register(ALICE, 'plain');
    expect(reachableAsRegistered(personalServer)).toBe(false);
    expect(() => toServer(personalServer)).toThrow(PER_USER_AUTH);
    expect(reachableAsRegistered(plain)).toBe(true);
    expect(toServer(plain)).toMatchObject({ name: 'plain', headers: {} });
  });
});

describe("UpstreamCredentials: an oauth server is reached with the calling user's own access token only", () => {
  const grantOf = (accessToken: string): OAuthGrant => ({
    tokens: { accessToken, refreshToken: `refresh-${accessToken}`, scopes: ['mcp:tools'], tokenType: 'Bearer' },
    client: { issuer: 'https://as.example', clientId: 'c', tokenEndpointAuth: 'none', source: 'dynamic' },
    authorizationServer: {
      issuer: 'https://as.example',
      authorizationEndpoint: 'https://as.example/auth',
      tokenEndpoint: 'https://as.example/token',
      clientIdMetadataDocumentSupported: false,
      issParameterSupported: false,
    },
    resource: 'https://files.example/mcp',
  });

  it("sends Authorization: Bearer with the caller's token, replacing the record's; another user without one gets the connect page", async () => {
    const { upstream, connections, directory, register, names } = makeSut();
    const record = await register(ALICE, 'files', { auth: { type: 'oauth' }, headers: { Authorization: 'Bearer shared', 'X-Team': 't1' } });
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    const failure = await directory.run(tool, {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectionRequiredError);
    expect(failure).toMatchObject({ connectUrl: `https://keygate.example.com/console/#/servers/${record.id}/connect` });
    expect(upstream.contacts).toEqual([]);
    await connections.saveGrant(ALICE, record.id, grantOf('at-alice'));
    expect(await names(ALICE)).toEqual(['files__echo']);
    expect(await directory.run(tool, {})).toMatchObject({ kind: 'relayed' });
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const headers of upstream.headers) expect(headers).toEqual({ Authorization: 'Bearer at-alice', 'X-Team': 't1' });
  });

  it("does not send a failed connection's token", async () => {
    const { upstream, connections, directory, register } = makeSut();
    const record = await register(ALICE, 'files', { auth: { type: 'oauth' } });
    await connections.saveGrant(ALICE, record.id, grantOf('at-alice'));
    await connections.markFailed(ALICE, record.id);
    const tool = (await directory.resolve(ALICE, 'files__echo'))!;
    await expect(directory.run(tool, {})).rejects.toBeInstanceOf(ConnectionRequiredError);
    expect(upstream.contacts).toEqual([]);
  });
});
