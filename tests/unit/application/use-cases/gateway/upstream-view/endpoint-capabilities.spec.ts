import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { UpstreamCredentials } from '../../../../../../src/application/use-cases/gateway/external/upstream-credentials';
import { FakeUpstreamContent } from '../../../../../fakes/fake-upstream-content';
import { makeUpstreamContent } from '../../../../../support/upstream-content-use-cases';
import {
  KEYGATE_CAPABILITIES,
  narrowedTo,
  UNKNOWN_UPSTREAM_CAPABILITIES,
} from '../../../../../../src/application/use-cases/gateway/upstream-view/endpoint-capabilities';
import { NAMESPACED_VIEW, singleServerView } from '../../../../../../src/application/use-cases/gateway/external/upstream-view';
import { topLevel } from '../../../../../../src/domain/resource/resource-record';
import { fakeDateOnly, laterDate } from '../../../../../support/fake-date';

const USER = 'alice';
const SERVERS = topLevel('mcp_servers');

function makeSut() {
  const store = new InMemoryResourceStore();
  const upstream = new FakeUpstreamContent();
  const { capabilities: sut, logged } = makeUpstreamContent(store, upstream);
  const register = async (name: string, capabilities?: Record<string, unknown>, error?: Error) => {
    const url = `https://${name}.example/mcp`;
    upstream.serve(url, { capabilities, error });
    return { url, record: await store.create(USER, SERVERS, { name, url }) };
  };
  const declared = (name: string) => sut.execute({ userId: USER, view: singleServerView(name)! });
  return { store, upstream, sut, logged, register, declared };
}

describe('narrowedTo', () => {
  it('declares tools alone for an upstream that has only tools', () => {
    expect(narrowedTo({ tools: { listChanged: true } })).toEqual({ tools: { listChanged: true } });
  });

  it('keeps each capability, subscribe and listChanged only when the upstream declares them', () => {
    expect(narrowedTo({ logging: {}, resources: { subscribe: true }, prompts: { listChanged: true }, completions: {} })).toEqual({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true },
      prompts: { listChanged: true },
      completions: {},
    });
    expect(narrowedTo({ resources: { listChanged: true, subscribe: 'yes' }, prompts: {} })).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: {},
    });
  });

  it("is keygate's whole set for an upstream that declares everything, and never more", () => {
    const everything = {
      tools: {},
      logging: {},
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      experimental: { x: {} },
      tasks: {},
    };
    expect(narrowedTo(everything)).toEqual(KEYGATE_CAPABILITIES);
  });

  it('takes only objects as declarations and echoes nothing the upstream added', () => {
    expect(narrowedTo({ logging: true, resources: null, prompts: [], completions: 'yes' })).toEqual({ tools: { listChanged: true } });
    expect(narrowedTo({ resources: { subscribe: true, extra: 'x'.repeat(100) } })).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
  });
});

describe('FindEndpointCapabilities', () => {
  afterEach(() => jest.useRealTimers());

  it("gives /mcp keygate's fixed set without contacting any upstream", async () => {
    const { sut, register, upstream } = makeSut();
    const { url } = await register('files', { tools: {} });
    expect(await sut.execute({ userId: USER, view: NAMESPACED_VIEW })).toEqual(KEYGATE_CAPABILITIES);
    expect(upstream.countOf(url)).toBe(0);
  });

  it("narrows keygate's set to what the one upstream declared", async () => {
    const { register, declared } = makeSut();
    await register('tools-only', { tools: {} });
    await register('files', { resources: { subscribe: true, listChanged: true }, logging: {} });
    expect(await declared('tools-only')).toEqual({ tools: { listChanged: true } });
    expect(await declared('files')).toEqual({
      tools: { listChanged: true },
      logging: {},
      resources: { subscribe: true, listChanged: true },
    });
  });

  it('asks an upstream once per record version, however many sessions open at the same time', async () => {
    fakeDateOnly();
    const { register, declared, upstream, store } = makeSut();
    const { url, record } = await register('files', { prompts: {} });
    await Promise.all([declared('files'), declared('files'), declared('files')]);
    expect(upstream.countOf(url)).toBe(1);
    // An edit (here: what it now declares, behind the same URL) is a new version, asked again.
    upstream.serve(url, { capabilities: { completions: {} } });
    laterDate(); // a later updated_at
    await store.update(USER, SERVERS, record.id, { name: 'files', url, headers: {} });
    expect(await declared('files')).toEqual({ tools: { listChanged: true }, completions: {} });
    expect(upstream.countOf(url)).toBe(2);
  });

  it('declares tools and logging for an upstream that cannot be reached, logs why, and does not ask again meanwhile', async () => {
    const { register, declared, upstream, logged } = makeSut();
    const { url } = await register('down', undefined, new Error('connect ECONNREFUSED 127.0.0.1:1'));
    expect(await declared('down')).toEqual(UNKNOWN_UPSTREAM_CAPABILITIES);
    expect(UNKNOWN_UPSTREAM_CAPABILITIES).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(logged.join('\n')).toContain('did not tell its capabilities: connect ECONNREFUSED');
    expect(await declared('down')).toEqual(UNKNOWN_UPSTREAM_CAPABILITIES);
    expect(upstream.countOf(url)).toBe(1);
  });

  it('declares tools and logging when the server is gone since its view was found', async () => {
    const { declared } = makeSut();
    expect(await declared('gone')).toEqual(UNKNOWN_UPSTREAM_CAPABILITIES);
  });

  it("asks a per-user server with the caller's own credential, and only once they have one", async () => {
    const store = new InMemoryResourceStore();
    const upstream = new FakeUpstreamContent();
    const connections = new InMemoryMcpConnectionStore();
    const credentials = new UpstreamCredentials(connections, (id) => `/console/#/servers/${id}/connect`);
    const { capabilities: sut } = makeUpstreamContent(store, upstream, [], 3, credentials);
    const url = 'https://files.example/mcp';
    upstream.serve(url, { capabilities: { prompts: {} } });
    const auth = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
    const record = await store.create(USER, SERVERS, { name: 'files', url, auth });
    const declared = () => sut.execute({ userId: USER, view: singleServerView('files')! });
    expect(await declared()).toEqual(UNKNOWN_UPSTREAM_CAPABILITIES);
    expect(upstream.countOf(url)).toBe(0);
    await connections.saveSecret(USER, record.id, 'sk-alice');
    expect(await declared()).toEqual({ tools: { listChanged: true }, prompts: {} });
    expect(upstream.headers).toEqual([{ Authorization: 'Bearer sk-alice' }]);
  });
});
