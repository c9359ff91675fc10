import { CloseUpstreamSessions } from '../../../../../../src/application/use-cases/gateway/mcp-sessions/close-upstream-sessions.use-case';
import { UpstreamToolDirectory } from '../../../../../../src/application/use-cases/gateway/external/upstream-tool-directory';
import { LruLoadingCache } from '../../../../../../src/adapters/mcp/upstream/lru-loading-cache';
import { ToolListing } from '../../../../../../src/application/ports/upstream-mcp.port';
import { topLevel } from '../../../../../../src/domain/resource/resource-record';
import { FakeUpstreamMcp } from '../../../../../fakes/fake-upstream-mcp';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryUpstreamSessionStore } from '../../../../../fakes/in-memory-upstream-session-store';
import { makeToolPins } from '../../../../../support/call-tool-service';

const USER = '00000000-0000-4000-8000-000000000001';
const HELD = { protocolVersion: '2025-11-25', serverCapabilities: {}, clientCapabilities: {}, logLevel: null };

function makeSut() {
  const records = new InMemoryResourceStore();
  const sessions = new InMemoryUpstreamSessionStore().open('client-1', USER);
  const upstream = new FakeUpstreamMcp();
  const register = (name: string) => records.create(USER, topLevel('mcp_servers'), { name, url: `https://${name}.example/mcp` });
  return { records, sessions, upstream, register, close: new CloseUpstreamSessions(sessions, records, upstream) };
}

describe('CloseUpstreamSessions', () => {
  it('ends each upstream session held for the ended client session, once however many replicas hear the end', async () => {
    const { sessions, upstream, register, close } = makeSut();
    const [a, b] = [await register('a'), await register('b')];
    await sessions.save('client-1', a.id, USER, { ...HELD, upstreamSessionId: 'up-a' });
    await sessions.save('client-1', b.id, USER, { ...HELD, upstreamSessionId: 'up-b' });
    expect(await close.execute({ clientSessionId: 'client-1' })).toBe(2);
    expect(upstream.terminated.sort((x, y) => x.url.localeCompare(y.url))).toEqual([
      { url: 'https://a.example/mcp', upstreamSessionId: 'up-a' },
      { url: 'https://b.example/mcp', upstreamSessionId: 'up-b' },
    ]);
    // Another replica hearing the same end takes nothing.
    expect(await close.execute({ clientSessionId: 'client-1' })).toBe(0);
    expect(upstream.terminated).toHaveLength(2);
  });

  it('does not contact an upstream whose record is gone', async () => {
    const { sessions, upstream, close } = makeSut();
    await sessions.save('client-1', '00000000-0000-4000-8000-0000000000ff', USER, { ...HELD, upstreamSessionId: 'up-gone' });
    expect(await close.execute({ clientSessionId: 'client-1' })).toBe(0);
    expect(upstream.terminated).toEqual([]);
  });
});

describe('UpstreamToolDirectory within a client session', () => {
  it('hands the client session and the relay to the upstream contact of a call, and nothing to a stateless one', async () => {
    const store = new InMemoryResourceStore();
    const upstream = new FakeUpstreamMcp();
    const directory = new UpstreamToolDirectory(
      store,
      upstream,
      new LruLoadingCache<ToolListing>({ maxEntries: 10, maxChars: 100_000, ttlMs: 60_000 }),
      () => undefined,
      makeToolPins().pins,
    );
    const url = 'https://files.example/mcp';
    upstream.serve(url, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    await store.create(USER, topLevel('mcp_servers'), { name: 'files', url });
    const tool = (await directory.resolve(USER, 'files__echo'))!;
    await directory.run(tool, {});
    const context = { clientSessionId: 'client-1' };
    expect(await directory.run(tool, {}, context)).toMatchObject({ kind: 'relayed' });
    expect(upstream.contexts).toEqual([undefined, context]);
  });
});
