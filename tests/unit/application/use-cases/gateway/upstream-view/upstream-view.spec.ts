import { AuthorizeToolCall } from '../../../../../../src/application/use-cases/gateway/tools/authorize-tool-call.use-case';
import { UpstreamToolDirectory } from '../../../../../../src/application/use-cases/gateway/external/upstream-tool-directory';
import {
  NAMESPACED_VIEW,
  singleServerView,
  UpstreamView,
} from '../../../../../../src/application/use-cases/gateway/external/upstream-view';
import { FilterTools } from '../../../../../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListTools } from '../../../../../../src/application/use-cases/gateway/list-tools/list-tools.use-case';
import { FindServerView } from '../../../../../../src/application/use-cases/gateway/upstream-view/find-server-view.use-case';
import { LruLoadingCache } from '../../../../../../src/adapters/mcp/upstream/lru-loading-cache';
import { ToolListing } from '../../../../../../src/application/ports/upstream-mcp.port';
import { UnknownReferenceError, UnknownResourceError } from '../../../../../../src/domain/errors';
import { topLevel } from '../../../../../../src/domain/resource/resource-record';
import { FakeContentBehaviour } from '../../../../../fakes/fake-upstream-content';
import { FakeUpstreamMcp } from '../../../../../fakes/fake-upstream-mcp';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeToolPins } from '../../../../../support/call-tool-service';
import { makeUpstreamContent } from '../../../../../support/upstream-content-use-cases';

const USER = 'alice';
const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object' } },
  { name: 'projects', inputSchema: { type: 'object' } },
];
const CONTENT: FakeContentBehaviour = {
  resources: [{ uri: 'file:///notes/a.txt', name: 'a' }],
  resourceTemplates: [{ uriTemplate: 'file:///notes/{name}', name: 'note' }],
  prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }],
  contents: { 'file:///notes/a.txt': 'A' },
  completions: { who: ['world'] },
};

function makeSut() {
  const store = new InMemoryResourceStore();
  const upstream = new FakeUpstreamMcp();
  const { pins } = makeToolPins();
  const directory = new UpstreamToolDirectory(
    store,
    upstream,
    new LruLoadingCache<ToolListing>({ maxEntries: 100, maxChars: 1_000_000, ttlMs: 60_000 }),
    () => undefined,
    pins,
  );
  const listTools = new ListTools(new FilterTools(), directory);
  const authorize = new AuthorizeToolCall(directory);
  const content = makeUpstreamContent(store);
  const register = async (name: string, extra: Record<string, unknown> = {}) => {
    const url = `https://${name}.example/mcp`;
    upstream.serve(url, { tools: TOOLS });
    content.upstream.serve(url, CONTENT);
    await store.create(USER, topLevel('mcp_servers'), { name, url, ...extra });
    return url;
  };
  const full = { userId: USER, scopes: ScopeSetMother.of() };
  const view = (name: string) => singleServerView(name)!;
  return { store, upstream, directory, listTools, authorize, content, register, full, view, find: new FindServerView(store) };
}

describe('the views', () => {
  it('names everything on /mcp as upstream-names does, splitting tools at the first __', () => {
    expect(NAMESPACED_VIEW.toolName('files', 'echo')).toBe('files__echo');
    expect(NAMESPACED_VIEW.splitTool('files__my__tool')).toEqual({ server: 'files', name: 'my__tool' });
    for (const name of ['echo', '__echo', 'files__']) expect(NAMESPACED_VIEW.splitTool(name)).toBeNull();
    expect(NAMESPACED_VIEW.uri('files', 'file:///a')).toBe('keygate://files/file:///a');
    expect(NAMESPACED_VIEW.promptName('files', 'greet')).toBe('files__greet');
  });

  it('keeps every name of its one server as it is and routes each to that server', () => {
    const files = singleServerView('files')!;
    expect([files.server, files.builtIns]).toEqual(['files', false]);
    expect([files.toolName('files', 'echo'), files.uri('files', 'file:///a'), files.promptName('files', 'greet')]).toEqual([
      'echo',
      'file:///a',
      'greet',
    ]);
    for (const split of [(n: string) => files.splitTool(n), (n: string) => files.splitUri(n), (n: string) => files.splitPrompt(n)]) {
      expect(split('docs__echo')).toEqual({ server: 'files', name: 'docs__echo' });
      expect(split('keygate://docs/x')).toEqual({ server: 'files', name: 'keygate://docs/x' });
      expect(split('')).toBeNull();
    }
  });

  it.each(['', 'Files', 'a_b', 'a'.repeat(33), '../x', 'files/x'])('has no view for %p, which cannot be a server name', (name) => {
    expect(singleServerView(name)).toBeNull();
  });
});

describe('FindServerView', () => {
  it("finds the view of the owner's server, and none for an unknown name, another user's server or a malformed name", async () => {
    const { register, find } = makeSut();
    await register('files');
    expect((await find.execute({ userId: USER, name: 'files' }))?.server).toBe('files');
    expect(await find.execute({ userId: USER, name: 'docs' })).toBeNull();
    expect(await find.execute({ userId: 'bob', name: 'files' })).toBeNull();
    expect(await find.execute({ userId: USER, name: 'FILES' })).toBeNull();
    expect(await find.execute({ userId: USER, name: 42 as unknown as string })).toBeNull();
  });
});

describe("tools in a single server's view", () => {
  it("lists that server's tools under their own names, without built-ins, and contacts no other server", async () => {
    const { upstream, listTools, register, full, view } = makeSut();
    const files = await register('files');
    await register('docs');
    const names = (v?: UpstreamView) => listTools.execute({ ...full, view: v }).then((tools) => tools.map((tool) => tool.name));
    expect(await names(view('files'))).toEqual(['echo', 'projects']);
    expect(upstream.contacts).toEqual([files]);
    expect(await names()).toEqual(expect.arrayContaining(['projects', 'files__echo', 'docs__echo', 'docs__projects']));
    expect(await names(view('nobody'))).toEqual([]);
  });

  it("resolves a plain name, even a built-in tool's, to the server's tool, with its tool_scopes", async () => {
    const { authorize, register, full, view } = makeSut();
    await register('files', { tool_scopes: { echo: ['chat:write'] } });
    const decide = (name: string, scopes = full.scopes) => authorize.execute({ userId: USER, scopes, name, view: view('files') });
    expect(await decide('projects')).toMatchObject({
      kind: 'allowed',
      target: { kind: 'external', tool: { tool: 'projects', callScopes: ['mcp_servers:write'] } },
    });
    expect(await decide('echo', ScopeSetMother.of('mcp_servers:write'))).toEqual({
      kind: 'denied',
      scopes: ['chat:write'],
      required: ['chat:write'],
    });
    expect(await decide('files__echo')).toMatchObject({ kind: 'allowed', target: { kind: 'external', tool: { tool: 'files__echo' } } });
    // On /mcp the same names are a built-in tool and a namespaced one.
    expect(await authorize.execute({ userId: USER, scopes: full.scopes, name: 'projects' })).toEqual({
      kind: 'allowed',
      target: { kind: 'built-in', resource: 'projects' },
    });
  });
});

describe("resources and prompts in a single server's view", () => {
  it("lists, reads, gets and completes under the upstream's own names, from that server alone", async () => {
    const { content, register, full, view } = makeSut();
    await register('files');
    const docs = await register('docs');
    const { useCases, upstream } = content;
    const inDocs = { ...full, view: view('docs') };
    expect((await useCases.listResources.execute(inDocs)).items.map((item) => item.uri)).toEqual(['file:///notes/a.txt']);
    expect((await useCases.listResourceTemplates.execute(inDocs)).items.map((item) => item.uriTemplate)).toEqual(['file:///notes/{name}']);
    expect((await useCases.listPrompts.execute(inDocs)).items.map((item) => item.name)).toEqual(['greet']);
    expect(upstream.contacts.every((url) => url === docs)).toBe(true);
    expect(await useCases.readResource.execute({ ...inDocs, uri: 'file:///notes/a.txt' })).toEqual({
      contents: [{ uri: 'file:///notes/a.txt', mimeType: 'text/plain', text: 'A' }],
    });
    expect(upstream.reads).toEqual([{ url: docs, uri: 'file:///notes/a.txt' }]);
    expect(
      await useCases.complete.execute({ ...inDocs, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'w' } }),
    ).toEqual({ completion: { values: ['world'] } });
    expect((await useCases.getPrompt.execute({ ...inDocs, name: 'greet' })).messages).toHaveLength(1);
  });

  it("answers /mcp's namespaced names as unknown there", async () => {
    const { content, register, full, view } = makeSut();
    await register('files');
    const inFiles = { ...full, view: view('files') };
    await expect(content.useCases.getPrompt.execute({ ...inFiles, name: 'files__greet' })).rejects.toBeInstanceOf(UnknownReferenceError);
    await expect(content.useCases.readResource.execute({ ...inFiles, uri: 'keygate://files/file:///notes/a.txt' })).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
  });
});
