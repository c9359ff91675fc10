import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../../../src/domain/errors';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { PostgresResourceStore } from '../../../../src/adapters/persistence/postgres-resource.store';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
let store: PostgresResourceStore;
beforeAll(async () => {
  db = await createTestDatabase();
  store = new PostgresResourceStore(db.dataSource.manager);
});
afterAll(() => db.drop());

describe('PostgresResourceStore on PostgreSQL', () => {
  it('creates, finds, updates and removes a record of its owner only', async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    const created = await store.create(alice, topLevel('agents'), { name: 'a', nested: { n: 1 } });
    expect(created).toMatchObject({
      ownerId: alice,
      resource: 'agents',
      parentId: null,
      subresource: null,
      data: { name: 'a', nested: { n: 1 } },
    });
    expect(await store.find(bob, topLevel('agents'), created.id)).toBeNull();
    expect(await store.find(alice, topLevel('projects'), created.id)).toBeNull();
    expect(await store.update(bob, topLevel('agents'), created.id, { name: 'stolen' })).toBeNull();
    expect(await store.remove(bob, topLevel('agents'), created.id)).toBe(false);
    expect((await store.update(alice, topLevel('agents'), created.id, { name: 'b' }))!.data).toEqual({ name: 'b' });
    expect(await store.remove(alice, topLevel('agents'), created.id)).toBe(true);
    expect(await store.find(alice, topLevel('agents'), created.id)).toBeNull();
  });

  it('tells whose record an id at a location is, and nothing for another location or an unknown id', async () => {
    const owner = randomUUID();
    const record = await store.create(owner, topLevel('mcp_servers'), { name: 'owned' });
    expect(await store.ownerOf(topLevel('mcp_servers'), record.id)).toBe(owner);
    expect(await store.ownerOf(topLevel('agents'), record.id)).toBeNull();
    expect(await store.ownerOf(topLevel('mcp_servers'), randomUUID())).toBeNull();
  });

  it("finds by a named statement that outlives a change to the table's columns on the same connections", async () => {
    const owner = randomUUID();
    const record = await store.create(owner, topLevel('projects'), { name: 'p' });
    // The connections that ran these hold the statement as prepared before the change.
    for (let i = 0; i < 12; i++) expect((await store.find(owner, topLevel('projects'), record.id))!.data).toEqual({ name: 'p' });
    await db.dataSource.query('ALTER TABLE resource_records ADD COLUMN added_later int');
    try {
      for (let i = 0; i < 12; i++) expect(await store.find(owner, topLevel('projects'), record.id)).toEqual(record);
    } finally {
      await db.dataSource.query('ALTER TABLE resource_records DROP COLUMN added_later');
    }
    expect(await store.find(owner, topLevel('projects'), record.id)).toEqual(record);
  });

  it('lists oldest first, searching text (wildcards literal) and querying by containment', async () => {
    const owner = randomUUID();
    const a = await store.create(owner, topLevel('models'), { name: 'gpt 100%', tags: ['x'] });
    const b = await store.create(owner, topLevel('models'), { name: 'claude', tags: ['x', 'y'] });
    expect((await store.list(owner, topLevel('models'))).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await store.list(owner, topLevel('models'), { text: 'CLAU' })).map((r) => r.id)).toEqual([b.id]);
    expect((await store.list(owner, topLevel('models'), { text: '0%' })).map((r) => r.id)).toEqual([a.id]);
    expect((await store.list(owner, topLevel('models'), { text: '_' })).map((r) => r.id)).toEqual([]);
    expect((await store.list(owner, topLevel('models'), { where: { tags: ['y'] } })).map((r) => r.id)).toEqual([b.id]);
  });

  it('lists at most MAX_LISTED_RECORDS, or the limit asked for', async () => {
    const owner = randomUUID();
    const ids = (
      await db.dataSource.query(
        `INSERT INTO resource_records (user_id, resource, data, created_at)
       SELECT $1, 'models', jsonb_build_object('i', i), now() + i * interval '1 ms' FROM generate_series(0, 101) AS i RETURNING id`,
        [owner],
      )
    ).map((row: { id: string }) => row.id);
    expect((await store.list(owner, topLevel('models'))).map((r) => r.id)).toEqual(ids.slice(0, 100));
    expect((await store.list(owner, topLevel('models'), {}, 101)).map((r) => r.id)).toEqual(ids.slice(0, 101));
    expect((await store.list(owner, topLevel('models'), { text: '1' }, 2)).map((r) => r.data)).toEqual([{ i: 1 }, { i: 10 }]);
  });

  it('skips `offset` records of the same order for a later page', async () => {
    const owner = randomUUID();
    const ids = (
      await db.dataSource.query(
        `INSERT INTO resource_records (user_id, resource, data, created_at)
       SELECT $1, 'models', jsonb_build_object('i', i), now() + i * interval '1 ms' FROM generate_series(0, 4) AS i RETURNING id`,
        [owner],
      )
    ).map((row: { id: string }) => row.id);
    expect((await store.list(owner, topLevel('models'), undefined, 2, 2)).map((r) => r.id)).toEqual(ids.slice(2, 4));
    expect((await store.list(owner, topLevel('models'), undefined, 2, 4)).map((r) => r.id)).toEqual(ids.slice(4));
    expect(await store.list(owner, topLevel('models'), undefined, 2, 5)).toEqual([]);
  });

  it('keeps items under their parent and cascades deletes', async () => {
    const owner = randomUUID();
    const parent = await store.create(owner, topLevel('projects'), {});
    const at = { resource: 'projects' as const, parentId: parent.id, subresource: 'tasks' };
    const task = await store.create(owner, at, { title: 't' });
    expect(await store.list(owner, topLevel('projects'))).toHaveLength(1);
    expect((await store.list(owner, at)).map((r) => r.id)).toEqual([task.id]);
    expect(await store.find(owner, { ...at, subresource: 'documents' }, task.id)).toBeNull();
    await store.remove(owner, topLevel('projects'), parent.id);
    const [{ count }] = await db.dataSource.query('SELECT count(*)::int AS count FROM resource_records WHERE id = $1', [task.id]);
    expect(count).toBe(0);
  });

  it('keeps MCP server names unique per user', async () => {
    const owner = randomUUID();
    await store.create(owner, topLevel('mcp_servers'), { name: 'files' });
    await expect(store.create(owner, topLevel('mcp_servers'), { name: 'files' })).rejects.toBeInstanceOf(ConflictError);
    await expect(store.create(randomUUID(), topLevel('mcp_servers'), { name: 'files' })).resolves.toBeDefined();
  });

  it('never matches MCP server headers by search or query, names or values', async () => {
    const owner = randomUUID();
    const server = await store.create(owner, topLevel('mcp_servers'), { name: 'files', headers: { Authorization: 'Bearer s3cret' } });
    const ids = async (filter: { text?: string; where?: Record<string, unknown> }) =>
      (await store.list(owner, topLevel('mcp_servers'), filter)).map((r) => r.id);
    for (const text of ['s3cret', 'Bearer s', 'Authorization', 'headers']) expect(await ids({ text })).toEqual([]);
    expect(await ids({ where: { headers: { Authorization: 'Bearer s3cret' } } })).toEqual([]);
    expect(await ids({ where: { headers: {} } })).toEqual([]);
    expect(await ids({ text: 'FILES' })).toEqual([server.id]);
    expect(await ids({ where: { name: 'files' } })).toEqual([server.id]);
    // Other resources, and items under a server, are searched whole as before.
    await store.create(owner, topLevel('agents'), { headers: { a: 'visible' } });
    expect(await store.list(owner, topLevel('agents'), { text: 'visible' })).toHaveLength(1);
  });

  it('creates within a limit per owner and location, even when the creates race', async () => {
    const owner = randomUUID();
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => store.createWithinLimit(owner, topLevel('mcp_servers'), { name: `s${i}` }, 5)),
    );
    expect(created.filter((r) => r !== null)).toHaveLength(5);
    expect(await store.list(owner, topLevel('mcp_servers'))).toHaveLength(5);
    expect(await store.createWithinLimit(randomUUID(), topLevel('mcp_servers'), { name: 's0' }, 5)).not.toBeNull();
    expect(await store.createWithinLimit(owner, topLevel('agents'), {}, 5)).not.toBeNull();
    await expect(store.createWithinLimit(owner, topLevel('mcp_servers'), { name: 's0' }, 50)).rejects.toBeInstanceOf(ConflictError);
  });
});
