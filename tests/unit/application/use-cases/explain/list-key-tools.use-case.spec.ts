import { ListKeyTools } from '../../../../../src/application/use-cases/explain/list-key-tools.use-case';
import { SERVERS } from '../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { NotFoundError, ValidationError } from '../../../../../src/domain/errors';
import { RESOURCES } from '../../../../../src/domain/scope';
import { InMemoryResourceStore } from '../../../../fakes/in-memory-resource.store';
import { ActorMother } from '../../../../mothers/actor.mother';
import { KEY_EPOCH } from '../../../../mothers/api-key.mother';
import { ScopeSetMother } from '../../../../mothers/scope-set.mother';
import { makeExplainPorts } from './explain-fixture';

const OWNER = 'owner-1';

async function makeSut() {
  const ports = makeExplainPorts();
  const store = new InMemoryResourceStore();
  const files = await store.create(OWNER, SERVERS, {
    name: 'files',
    url: 'https://files.example/mcp',
    tool_scopes: { read: ['projects:read'] },
  });
  await ports.pin(files.id, 'echo', 'read', 'wipe');
  await ports.change(files.id, 'wipe');
  const sut = new ListKeyTools(ports.keys, store, ports.pins, ports.clock);
  const list = (keyId: string, more: { limit?: number; cursor?: string } = {}, actor = ActorMother.user(OWNER)) =>
    sut.execute({ actor, keyId, ...more });
  return { ...ports, store, list };
}

describe('ListKeyTools', () => {
  it('lists the built-ins, then each server tool by name, visible as tools/list shows them', async () => {
    const { save, list } = await makeSut();
    const key = save({ userId: OWNER });
    const { tools, nextCursor, keyId } = await list(key.id);
    expect(keyId).toBe(key.id);
    expect(nextCursor).toBeNull();
    expect(tools.map((t) => t.name)).toEqual([...RESOURCES, 'files__echo', 'files__read', 'files__wipe']);
    expect(tools.filter((t) => t.visible).map((t) => t.name)).toEqual([...RESOURCES, 'files__echo', 'files__read']);
    expect(tools.find((t) => t.name === 'files__read')).toEqual({
      name: 'files__read',
      server: 'files',
      requiredScopes: ['projects:read'],
      visible: true,
    });
    expect(tools.find((t) => t.name === 'projects')).toEqual({
      name: 'projects',
      server: null,
      requiredScopes: ['projects:read'],
      visible: true,
    });
  });

  it('says why each hidden tool is hidden: a changed definition, a list scope the key lacks', async () => {
    const { save, list } = await makeSut();
    const key = save({ userId: OWNER, scopes: ScopeSetMother.of('projects:read', 'mcp_servers:read') });
    const { tools } = await list(key.id);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('files__wipe')).toMatchObject({
      visible: false,
      hiddenBy: 'pin',
      reason: expect.stringMatching(/^The definition of the tool wipe/),
    });
    expect(byName.get('agents')).toMatchObject({ visible: false, hiddenBy: 'scope', reason: 'The key lacks agents:read' });
    expect(byName.get('projects')?.visible).toBe(true);
    const narrow = save({ userId: OWNER, scopes: ScopeSetMother.of('projects:read') });
    const hidden = new Map((await list(narrow.id)).tools.map((t) => [t.name, t]));
    // The scope comes first: a key that could not list the server's tools at all is told so, even for a withheld one.
    expect(hidden.get('files__wipe')).toMatchObject({ visible: false, hiddenBy: 'scope', reason: 'The key lacks mcp_servers:read' });
    expect(hidden.get('files__read')?.visible).toBe(true);
  });

  it('hides every tool of a key that cannot be used, saying why', async () => {
    const { save, list } = await makeSut();
    const key = save({ userId: OWNER, revokedAt: KEY_EPOCH });
    const { tools } = await list(key.id);
    expect(tools.every((t) => !t.visible && t.hiddenBy === 'key' && t.reason?.startsWith('The key was revoked'))).toBe(true);
  });

  it('pages: limit and cursor, and refuses a bad one of either', async () => {
    const { save, list } = await makeSut();
    const key = save({ userId: OWNER });
    const first = await list(key.id, { limit: 4 });
    expect(first.tools).toHaveLength(4);
    const rest = await list(key.id, { limit: 500, cursor: first.nextCursor! });
    expect(rest.nextCursor).toBeNull();
    expect([...first.tools, ...rest.tools].map((t) => t.name)).toEqual((await list(key.id)).tools.map((t) => t.name));
    await expect(list(key.id, { limit: 0 })).rejects.toThrow(ValidationError);
    await expect(list(key.id, { limit: 501 })).rejects.toThrow(ValidationError);
    await expect(list(key.id, { cursor: 'x' })).rejects.toThrow(ValidationError);
  });

  it("lets an admin list another user's key; another user gets 404", async () => {
    const { save, list } = await makeSut();
    const key = save({ userId: OWNER });
    expect((await list(key.id, {}, ActorMother.admin())).tools.length).toBeGreaterThan(0);
    await expect(list(key.id, {}, ActorMother.user('someone-else'))).rejects.toThrow(NotFoundError);
  });
});
