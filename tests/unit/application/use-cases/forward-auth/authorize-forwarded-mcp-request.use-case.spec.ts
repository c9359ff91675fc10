import { AuthorizeForwardedMcpRequest } from '../../../../../src/application/use-cases/forward-auth/authorize-forwarded-mcp-request.use-case';
import { AuthorizeToolCall } from '../../../../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { UpstreamToolDirectory } from '../../../../../src/application/use-cases/gateway/external/upstream-tool-directory';
import { singleServerView } from '../../../../../src/application/use-cases/gateway/external/upstream-view';
import { FindServerView } from '../../../../../src/application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { LruLoadingCache } from '../../../../../src/adapters/mcp/upstream/lru-loading-cache';
import { ToolListing } from '../../../../../src/application/ports/upstream-mcp.port';
import { ForbiddenError, InsufficientScopeError, NotFoundError } from '../../../../../src/domain/errors';
import { topLevel } from '../../../../../src/domain/resource/resource-record';
import { FakeUpstreamMcp } from '../../../../fakes/fake-upstream-mcp';
import { InMemoryResourceStore } from '../../../../fakes/in-memory-resource.store';
import { ScopeSetMother } from '../../../../mothers/scope-set.mother';
import { makeToolPins } from '../../../../support/call-tool-service';

const USER = 'alice';

async function makeSut() {
  const store = new InMemoryResourceStore();
  const upstream = new FakeUpstreamMcp();
  const { pins, store: pinStore } = makeToolPins();
  const directory = new UpstreamToolDirectory(
    store,
    upstream,
    new LruLoadingCache<ToolListing>({ maxEntries: 10, maxChars: 100_000, ttlMs: 60_000 }),
    () => undefined,
    pins,
  );
  const authorize = new AuthorizeToolCall(directory);
  const sut = new AuthorizeForwardedMcpRequest(new FindServerView(store), authorize, pins);
  const record = await store.create(USER, topLevel('mcp_servers'), {
    name: 'files',
    url: 'https://files.example/mcp',
    tool_scopes: { echo: ['chat:read'], secret: ['chat:write'] },
  });
  const as = (scopes: string[], userId = USER) => ({ userId, scopes: ScopeSetMother.of(...scopes) });
  const call = (name: string, scopes: string[], userId = USER) =>
    sut.execute({ principal: as(scopes, userId), server: 'files', method: 'tools/call', name });
  return { sut, authorize, upstream, pinStore, serverId: record.id, as, call };
}

describe('AuthorizeForwardedMcpRequest', () => {
  it("passes a tools/call the record's tool_scopes allow, and refuses one they do not with the scopes missing", async () => {
    const { call } = await makeSut();
    await expect(call('echo', ['chat:read'])).resolves.toBeUndefined();
    await expect(call('secret', ['chat:read'])).rejects.toEqual(new InsufficientScopeError(['chat:write']));
  });

  it('needs mcp_servers:write for a tool without tool_scopes, as /mcp does', async () => {
    const { call } = await makeSut();
    await expect(call('other', ['chat:write'])).rejects.toEqual(new InsufficientScopeError(['mcp_servers:write']));
    await expect(call('other', ['mcp_servers:write'])).resolves.toBeUndefined();
  });

  it("decides exactly as /mcp/servers/<server>'s tool gate for the same plain name", async () => {
    const { authorize, call, as } = await makeSut();
    for (const [name, scopes] of [
      ['echo', ['chat:read']],
      ['secret', ['chat:read']],
      ['projects', ['projects:write']],
      ['files__echo', []],
    ] as const) {
      const gate = await authorize.execute({ ...as([...scopes]), name, view: singleServerView('files')! });
      const forwarded = await call(name, [...scopes]).then(
        () => 'allowed',
        (error) => (error instanceof InsufficientScopeError ? 'denied' : 'other'),
      );
      expect(forwarded).toBe(gate.kind);
    }
  });

  it('refuses a tool whose pinned definition changed and is not approved yet, with a ForbiddenError, and passes it once approved', async () => {
    const { call, pinStore, serverId } = await makeSut();
    await pinStore.pinFirst(serverId, [{ tool: 'echo', sha256: 'a'.repeat(64) }], 10);
    await expect(call('echo', ['chat:read'])).resolves.toBeUndefined();
    await pinStore.markChanged(serverId, [{ tool: 'echo', sha256: 'b'.repeat(64) }]);
    const refused = call('echo', ['chat:read']);
    await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
    await expect(refused).rejects.toThrow(/definition of the tool echo on the MCP server files changed since it was approved/);
    // The scopes come first: a key that could not call the tool anyway is told which scope it lacks.
    await expect(call('echo', ['routines:read'])).rejects.toBeInstanceOf(InsufficientScopeError);
    await pinStore.approve(serverId, [{ tool: 'echo', sha256: null }]);
    await expect(call('echo', ['chat:read'])).resolves.toBeUndefined();
  });

  it("answers an unknown, another user's and a malformed server alike, for every method", async () => {
    const { sut, as } = await makeSut();
    for (const [server, userId] of [
      ['docs', USER],
      ['files', 'bob'],
      ['FILES', USER],
      ['../files', USER],
    ]) {
      for (const method of ['tools/call', 'tools/list']) {
        await expect(sut.execute({ principal: as([], userId), server, method, name: 'echo' })).rejects.toBeInstanceOf(NotFoundError);
      }
    }
  });

  it("passes any other method of a known server whatever the key's scopes, and never contacts the upstream", async () => {
    const { sut, as, upstream } = await makeSut();
    for (const method of ['tools/list', 'resources/read', 'server/discover']) {
      await expect(sut.execute({ principal: as(['chat:read']), server: 'files', method, name: 'anything' })).resolves.toBeUndefined();
    }
    expect(upstream.contacts).toEqual([]);
  });
});
