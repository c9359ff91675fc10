import { UpstreamRefusal } from '../../../../../../src/application/ports/upstream-refusal';
import { UnknownReferenceError, UnknownResourceError, UpstreamFailedError, ValidationError } from '../../../../../../src/domain/errors';
import { topLevel } from '../../../../../../src/domain/resource/resource-record';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { FakeContentBehaviour } from '../../../../../fakes/fake-upstream-content';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeUpstreamContent } from '../../../../../support/upstream-content-use-cases';

const USER = 'alice';
const NOTES: FakeContentBehaviour = {
  resources: [
    { uri: 'file:///notes/a.txt', name: 'a' },
    { uri: 'file:///secret/s.txt', name: 's' },
  ],
  resourceTemplates: [
    { uriTemplate: 'file:///notes/{name}', name: 'note' },
    { uriTemplate: 'file:///secret/{name}', name: 'secret' },
  ],
  prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }, { name: 'vault' }],
  contents: { 'file:///notes/a.txt': 'A', 'file:///notes/b.txt': 'B', 'file:///secret/s.txt': 'S', 'file:///secret/t.txt': 'T' },
  completions: { who: ['world', 'wendy', 'bob'] },
};
/** What the owner guards: the secret template (and so every URI it can produce) and the vault prompt, with chat:read. */
const GUARDS = { resource_scopes: { 'file:///secret/{name}': ['chat:read'] }, prompt_scopes: { vault: ['chat:read'] } };

function makeSut() {
  const store = new InMemoryResourceStore();
  const { useCases, upstream, logged } = makeUpstreamContent(store);
  const register = async (name: string, behaviour: FakeContentBehaviour = NOTES, extra: Record<string, unknown> = GUARDS) => {
    const url = `https://${name}.example/mcp`;
    upstream.serve(url, behaviour);
    await store.create(USER, topLevel('mcp_servers'), { name, url, ...extra });
    return url;
  };
  const as = (...scopes: string[]) => ({ userId: USER, scopes: ScopeSetMother.of(...scopes) });
  return { store, upstream, logged, useCases, register, as };
}

const uris = (page: { items: Record<string, unknown>[] }, field = 'uri') => page.items.map((item) => item[field]);

describe('upstream resources and prompts: naming', () => {
  it("lists every server's resources, templates and prompts under its own name, so equal upstream names do not collide", async () => {
    const { useCases, register, as } = makeSut();
    await register('files');
    await register('docs');
    const all = as('mcp_servers:read', 'chat:read');
    expect(uris(await useCases.listResources.execute(all))).toEqual([
      'keygate://files/file:///notes/a.txt',
      'keygate://files/file:///secret/s.txt',
      'keygate://docs/file:///notes/a.txt',
      'keygate://docs/file:///secret/s.txt',
    ]);
    expect(uris(await useCases.listResourceTemplates.execute(all), 'uriTemplate')).toEqual([
      'keygate://files/file:///notes/{name}',
      'keygate://files/file:///secret/{name}',
      'keygate://docs/file:///notes/{name}',
      'keygate://docs/file:///secret/{name}',
    ]);
    expect(uris(await useCases.listPrompts.execute(all), 'name')).toEqual(['files__greet', 'files__vault', 'docs__greet', 'docs__vault']);
  });

  it('routes a read to its server with the upstream URI, and the contents carry the namespaced URI', async () => {
    const { useCases, upstream, register, as } = makeSut();
    await register('files');
    const docs = await register('docs', { contents: { 'file:///notes/a.txt': 'from docs' } });
    const result = await useCases.readResource.execute({ ...as('mcp_servers:read'), uri: 'keygate://docs/file:///notes/a.txt' });
    expect(result).toEqual({ contents: [{ uri: 'keygate://docs/file:///notes/a.txt', mimeType: 'text/plain', text: 'from docs' }] });
    expect(upstream.reads).toEqual([{ url: docs, uri: 'file:///notes/a.txt' }]);
    expect(upstream.contacts).toEqual([docs]);
  });

  it("routes prompts/get and completion to the server, with the upstream's own names, in one contact", async () => {
    const { useCases, upstream, register, as } = makeSut();
    const files = await register('files');
    const got = await useCases.getPrompt.execute({ ...as('mcp_servers:read'), name: 'files__greet', arguments: { who: 'you' } });
    expect(got).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'greet with {"who":"you"}' } }] });
    const completed = await useCases.complete.execute({
      ...as('mcp_servers:read'),
      ref: { type: 'ref/prompt', name: 'files__greet' },
      argument: { name: 'who', value: 'w' },
    });
    expect(completed).toEqual({ completion: { values: ['world', 'wendy'] } });
    await useCases.complete.execute({
      ...as('mcp_servers:read'),
      ref: { type: 'ref/resource', uri: 'keygate://files/file:///notes/{name}' },
      argument: { name: 'name', value: '' },
    });
    expect(upstream.completions.map((c) => c.params.ref)).toEqual([
      { type: 'ref/prompt', name: 'greet' },
      { type: 'ref/resource', uri: 'file:///notes/{name}' },
    ]);
    // The prompt listing was read in get's contact and then reused; each operation is one contact.
    expect(upstream.countOf(files)).toBe(3);
    expect(upstream.lists.filter((l) => l.kind === 'prompts')).toHaveLength(1);
  });
});

describe('upstream resources and prompts: scopes', () => {
  it('shows a key without mcp_servers:read only what resource_scopes and prompt_scopes grant it, URIs from a guarded template included', async () => {
    const { useCases, register, as } = makeSut();
    await register('files');
    const chat = as('chat:read');
    expect(uris(await useCases.listResources.execute(chat))).toEqual(['keygate://files/file:///secret/s.txt']);
    expect(uris(await useCases.listResourceTemplates.execute(chat), 'uriTemplate')).toEqual(['keygate://files/file:///secret/{name}']);
    expect(uris(await useCases.listPrompts.execute(chat), 'name')).toEqual(['files__vault']);
    // A URI the template produces, not listed: readable with the template's scopes.
    expect((await useCases.readResource.execute({ ...chat, uri: 'keygate://files/file:///secret/t.txt' })).contents).toHaveLength(1);
    await expect(useCases.readResource.execute({ ...chat, uri: 'keygate://files/file:///notes/a.txt' })).rejects.toThrow(
      UnknownResourceError,
    );
  });

  it('hides guarded items from mcp_servers:read alone, and answers them exactly as items that do not exist', async () => {
    const { useCases, upstream, register, as } = makeSut();
    await register('files');
    const reader = as('mcp_servers:read');
    expect(uris(await useCases.listResources.execute(reader))).toEqual(['keygate://files/file:///notes/a.txt']);
    expect(uris(await useCases.listPrompts.execute(reader), 'name')).toEqual(['files__greet']);
    const hidden = await useCases.readResource.execute({ ...reader, uri: 'keygate://files/file:///secret/s.txt' }).catch((e) => e);
    const missing = await useCases.readResource.execute({ ...reader, uri: 'keygate://files/file:///notes/zz.txt' }).catch((e) => e);
    expect(hidden).toBeInstanceOf(UnknownResourceError);
    expect(missing).toBeInstanceOf(UnknownResourceError);
    expect([hidden.message, missing.message]).toEqual([
      'Resource not found: keygate://files/file:///secret/s.txt',
      'Resource not found: keygate://files/file:///notes/zz.txt',
    ]);
    const hiddenPrompt = await useCases.getPrompt.execute({ ...reader, name: 'files__vault' }).catch((e) => e);
    const missingPrompt = await useCases.getPrompt.execute({ ...reader, name: 'files__vaulz' }).catch((e) => e);
    expect([hiddenPrompt, missingPrompt].map((e) => [e.constructor, e.message])).toEqual([
      [UnknownReferenceError, 'Unknown prompt: files__vault'],
      [UnknownReferenceError, 'Unknown prompt: files__vaulz'],
    ]);
    await expect(
      useCases.complete.execute({
        ...reader,
        ref: { type: 'ref/resource', uri: 'keygate://files/file:///secret/{name}' },
        argument: { name: 'name', value: '' },
      }),
    ).rejects.toThrow('Unknown resource template: keygate://files/file:///secret/{name}');
    expect(upstream.reads.map((r) => r.uri)).toEqual(['file:///notes/zz.txt']); // the hidden one never went upstream
    expect(upstream.gets).toEqual([]);
  });

  it('needs every scope of each template a URI matches, and an exact entry wins over templates', async () => {
    const { useCases, register, as } = makeSut();
    await register('files', NOTES, {
      resource_scopes: {
        'file:///{+any}': ['chat:read'],
        'file:///secret/{name}': ['models:read'],
        'file:///secret/t.txt': ['projects:read'],
      },
    });
    const read = (uri: string, ...scopes: string[]) => useCases.readResource.execute({ ...as(...scopes), uri: `keygate://files/${uri}` });
    await expect(read('file:///secret/s.txt', 'chat:read')).rejects.toThrow(UnknownResourceError);
    await expect(read('file:///secret/s.txt', 'models:read')).rejects.toThrow(UnknownResourceError);
    expect((await read('file:///secret/s.txt', 'chat:read', 'models:read')).contents).toHaveLength(1);
    expect((await read('file:///secret/t.txt', 'projects:read')).contents).toHaveLength(1);
    expect((await read('file:///notes/b.txt', 'chat:read')).contents).toHaveLength(1);
  });

  it('does not contact a server none of whose items the scopes could show', async () => {
    const { useCases, upstream, register, as } = makeSut();
    await register('plain', NOTES, {});
    const guarded = await register('guarded');
    expect(uris(await useCases.listPrompts.execute(as('chat:read')), 'name')).toEqual(['guarded__vault']);
    expect(upstream.contacts).toEqual([guarded]);
  });
});

describe('upstream resources and prompts: not found and failures', () => {
  it.each(['file:///notes/a.txt', 'keygate://nobody/file:///notes/a.txt', 'keygate://files', 'keygate://FILES/file:///notes/a.txt'])(
    'answers a read of %s with UnknownResourceError, contacting nothing',
    async (uri) => {
      const { useCases, upstream, register, as } = makeSut();
      await register('files');
      await expect(useCases.readResource.execute({ ...as('mcp_servers:read'), uri })).rejects.toThrow(UnknownResourceError);
      expect(upstream.contacts).toEqual([]);
    },
  );

  it("answers another user's server as unknown", async () => {
    const { useCases, register, as } = makeSut();
    await register('files');
    const bob = { ...as('mcp_servers:read'), userId: 'bob' };
    await expect(useCases.readResource.execute({ ...bob, uri: 'keygate://files/file:///notes/a.txt' })).rejects.toThrow(
      UnknownResourceError,
    );
    await expect(useCases.getPrompt.execute({ ...bob, name: 'files__greet' })).rejects.toThrow(UnknownReferenceError);
    expect((await useCases.listResources.execute(bob)).items).toEqual([]);
  });

  it('refuses params of the wrong type before contacting anything', async () => {
    const { useCases, upstream, register, as } = makeSut();
    await register('files');
    const reader = as('mcp_servers:read');
    const wrong = <T>(value: unknown) => value as T;
    await expect(useCases.readResource.execute({ ...reader, uri: wrong(5) })).rejects.toThrow(ValidationError);
    await expect(useCases.readResource.execute({ ...reader, uri: 'keygate://files/' + 'x'.repeat(9000) })).rejects.toThrow(ValidationError);
    await expect(useCases.getPrompt.execute({ ...reader, name: 'files__greet', arguments: wrong({ who: 1 }) })).rejects.toThrow(
      'arguments.who: must be a string',
    );
    await expect(
      useCases.complete.execute({ ...reader, ref: wrong({ type: '__proto__' }), argument: { name: 'a', value: '' } }),
    ).rejects.toThrow('ref.type');
    await expect(
      useCases.complete.execute({ ...reader, ref: { type: 'ref/prompt', name: 'files__greet' }, argument: wrong({ name: 'who' }) }),
    ).rejects.toThrow('argument.value');
    await expect(useCases.listResources.execute({ ...reader, cursor: 'abc' })).rejects.toThrow('cursor');
    expect(upstream.contacts).toEqual([]);
  });

  it('leaves a failing server out of lists (logged) and answers its reads and gets with UpstreamFailedError, the refusal in general terms', async () => {
    const { useCases, register, as, logged } = makeSut();
    await register('files');
    await register('down', { error: UpstreamRefusal.address('down.example resolves to 10.0.0.1') });
    const reader = as('mcp_servers:read');
    expect(uris(await useCases.listResources.execute(reader))).toEqual(['keygate://files/file:///notes/a.txt']);
    const read = await useCases.readResource.execute({ ...reader, uri: 'keygate://down/file:///notes/a.txt' }).catch((e) => e);
    expect(read).toBeInstanceOf(UpstreamFailedError);
    expect(read.message).toBe('upstream address not allowed');
    await expect(useCases.getPrompt.execute({ ...reader, name: 'down__greet' })).rejects.toThrow(UpstreamFailedError);
    expect(logged.join('\n')).toContain('10.0.0.1');
  });
});

describe('upstream lists: pages', () => {
  it('hands out pages of at most 100 items with a cursor that continues where the last stopped', async () => {
    const { useCases, register, as } = makeSut();
    await register('many', { resources: Array.from({ length: 250 }, (_, i) => ({ uri: `mem://${i}`, name: `r${i}` })) }, {});
    const reader = as('mcp_servers:read');
    const first = await useCases.listResources.execute(reader);
    const second = await useCases.listResources.execute({ ...reader, cursor: first.nextCursor });
    const third = await useCases.listResources.execute({ ...reader, cursor: second.nextCursor });
    expect([first.items.length, second.items.length, third.items.length, third.nextCursor]).toEqual([100, 100, 50, undefined]);
    expect(third.items.at(-1)).toEqual({ uri: 'keygate://many/mem://249', name: 'r249' });
  });

  it('stops a page at its byte budget', async () => {
    const { useCases, register, as } = makeSut();
    await register('big', { resources: Array.from({ length: 20 }, (_, i) => ({ uri: `mem://${i}`, name: 'x'.repeat(4000) })) }, {});
    const page = await useCases.listResources.execute({ ...as('mcp_servers:read'), pageBytes: 10_000 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toBe('2');
  });
});

describe('upstream resources and prompts: access asked again (a later round of a parked read or prompt)', () => {
  it('allows what the read and the get would allow, and refuses the rest with their errors, without contacting the upstream', async () => {
    const { useCases, upstream, register, as } = makeSut();
    await register('files');
    const check = (method: 'resources/read' | 'prompts/get', name: string, ...scopes: string[]) =>
      useCases.checkAccess.execute({ ...as(...scopes), method, name });
    const contacts = upstream.contacts.length;
    await expect(check('resources/read', 'keygate://files/file:///secret/t.txt', 'chat:read')).resolves.toBeUndefined();
    await expect(check('resources/read', 'keygate://files/file:///secret/t.txt', 'mcp_servers:read')).rejects.toThrow(UnknownResourceError);
    await expect(check('resources/read', 'keygate://nowhere/file:///notes/a.txt', 'mcp_servers:read')).rejects.toThrow(
      UnknownResourceError,
    );
    await expect(check('prompts/get', 'files__vault', 'chat:read')).resolves.toBeUndefined();
    await expect(check('prompts/get', 'files__vault', 'mcp_servers:read')).rejects.toThrow(UnknownReferenceError);
    await expect(check('prompts/get', 'nowhere__vault', 'chat:read')).rejects.toThrow(UnknownReferenceError);
    await expect(check('prompts/get', '', 'chat:read')).rejects.toThrow(ValidationError);
    expect(upstream.contacts).toHaveLength(contacts);
  });
});
