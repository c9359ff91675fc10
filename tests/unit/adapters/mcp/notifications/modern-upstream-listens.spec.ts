import { Agent } from 'undici';
import { modernListens, ModernListenSources } from '../../../../../src/adapters/mcp/notifications/modern-upstream-listens';
import { UpstreamProfile } from '../../../../../src/adapters/mcp/upstream/upstream-profile';
import { SERVERS } from '../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { NAMESPACED_VIEW, singleServerView } from '../../../../../src/application/use-cases/gateway/external/upstream-view';
import { ResourceRecord } from '../../../../../src/domain/resource/resource-record';

const record = (name: string, extra: Partial<ResourceRecord> = {}): ResourceRecord => ({
  id: `id-${name}`,
  ownerId: 'u1',
  resource: SERVERS.resource,
  parentId: null,
  subresource: null,
  data: { name, url: `http://${name}.test/mcp` },
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...extra,
});

const modern = (capabilities: Record<string, unknown>): UpstreamProfile => ({
  era: 'modern',
  protocolVersion: '2026-07-28',
  capabilities,
  discover: {} as never,
});
// Never connected: no target is opened here.
const agent = new Agent();
afterAll(() => agent.close());
const holder = { sessionId: 's1', keyId: 'k1', userId: 'u1', view: NAMESPACED_VIEW };

const asked: string[] = [];
beforeEach(() => void asked.splice(0));

function makeSut(
  profiles: Record<string, UpstreamProfile>,
  subscribed: Record<string, string[]> = {},
  records = Object.keys(profiles).map((name) => record(name)),
) {
  const sources: ModernListenSources = {
    servers: async () => records,
    subscribed: async () => new Map(Object.entries(subscribed)),
    profileOf: async (server) => (asked.push(server.name), profiles[server.name]),
  };
  return modernListens(sources, agent, { timeoutMs: 1000, maxBytes: 1000 });
}

describe('modernListens', () => {
  it('listens on /mcp to each 2026 upstream the session subscribed to, asking for what it declares and those URIs, probing no other', async () => {
    const listened = makeSut(
      {
        new: modern({ tools: { listChanged: true }, resources: { subscribe: true } }),
        old: { era: 'legacy', protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } } },
        down: { era: 'unknown' },
        quiet: modern({ tools: {} }),
      },
      { 'id-new': ['b://2', 'a://1'], 'id-old': ['x://1'] },
    );
    const targets = await listened(holder, new Set());
    expect(targets.map((t) => [t.serverId, t.key])).toEqual([['id-new', 'listen 1970-01-01T00:00:00.000Z toolsListChanged a://1\nb://2']]);
    expect(asked).toEqual(['new', 'old']);
  });

  it('listens on /mcp/servers/<name> to its upstream without a subscription, for its list changes', async () => {
    const listened = makeSut({ one: modern({ tools: { listChanged: true } }) });
    const targets = await listened({ ...holder, view: singleServerView('one')! }, new Set());
    expect(targets.map((t) => t.key)).toEqual(['listen 1970-01-01T00:00:00.000Z toolsListChanged ']);
  });

  it('leaves out an upstream with a held session, and a record whose header values did not decrypt', async () => {
    const profile = modern({ tools: { listChanged: true } });
    const listened = makeSut({ held: profile, locked: profile }, { 'id-held': ['a://1'], 'id-locked': ['a://1'] }, [
      record('held'),
      record('locked', { unreadableSecrets: true }),
    ]);
    expect(await listened(holder, new Set(['id-held']))).toEqual([]);
  });

  it('asks for no URI where the upstream declares no subscribe, and a new subscription changes the key (listened to anew)', async () => {
    const noSubscribe = makeSut({ lists: modern({ prompts: { listChanged: true } }) }, { 'id-lists': ['a://1'] });
    expect((await noSubscribe(holder, new Set())).map((t) => t.key)).toEqual(['listen 1970-01-01T00:00:00.000Z promptsListChanged ']);
    const profile = { files: modern({ resources: { subscribe: true } }) };
    const before = await makeSut(profile, { 'id-files': ['a://1'] })(holder, new Set());
    const after = await makeSut(profile, { 'id-files': ['a://1', 'a://2'] })(holder, new Set());
    expect(before[0].key).not.toBe(after[0].key);
  });
});
