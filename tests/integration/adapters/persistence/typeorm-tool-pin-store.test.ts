import { randomUUID } from 'node:crypto';
import { TypeormToolPinStore } from '../../../../src/adapters/persistence/typeorm-tool-pin-store';
import { PostgresResourceStore } from '../../../../src/adapters/persistence/postgres-resource.store';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const h = (c: string) => c.repeat(64);
async function server(): Promise<string> {
  const records = new PostgresResourceStore(db.dataSource.manager);
  return (
    await records.create(randomUUID(), topLevel('mcp_servers'), { name: `s${randomUUID().slice(0, 8)}`, url: 'https://a.example/mcp' })
  ).id;
}
/** A store per "replica": each its own statements over the shared pool. */
const replica = () => new TypeormToolPinStore(db.dataSource.manager);

describe('TypeormToolPinStore', () => {
  it('keeps the first definition pinned when replicas pin the same names at once, and stays within the bound', async () => {
    const id = await server();
    const served = (c: string) => ['a', 'b', 'c', 'd'].map((tool) => ({ tool, sha256: h(c) }));
    await Promise.all([
      replica().pinFirst(id, served('1'), 3),
      replica().pinFirst(id, served('2'), 3),
      replica().pinFirst(id, served('3'), 3),
    ]);
    const pins = await replica().list(id);
    expect(pins.map((p) => p.tool)).toEqual(['a', 'b', 'c']);
    expect(new Set(pins.map((p) => p.sha256)).size).toBe(1);
    await replica().pinFirst(id, [{ tool: 'z', sha256: h('9') }], 3);
    expect(await replica().list(id)).toHaveLength(3);
    // Names already pinned take no place: a listing that repeats them still pins a newcomer while there is room.
    await replica().pinFirst(id, [...served('5'), { tool: 'y', sha256: h('8') }], 5);
    const after = await replica().list(id);
    expect(after.map((p) => p.tool)).toEqual(['a', 'b', 'c', 'd', 'y']);
    expect(after.slice(0, 3)).toEqual(pins);
  });

  it('reports a new definition to one of two replicas noting it at once, and once only', async () => {
    const id = await server();
    await replica().pinFirst(id, [{ tool: 'echo', sha256: h('a') }], 10);
    const noted = await Promise.all([1, 2, 3].map(() => replica().markChanged(id, [{ tool: 'echo', sha256: h('b') }])));
    expect(noted.flat()).toEqual([{ tool: 'echo', sha256: h('a'), seenSha256: h('b'), status: 'changed', described: false }]);
    expect(await replica().markChanged(id, [{ tool: 'echo', sha256: h('a') }])).toEqual([]);
    expect(await replica().markChanged(id, [{ tool: 'echo', sha256: h('c') }])).toHaveLength(1);
    await replica().restore(id, [{ tool: 'echo', sha256: h('a') }]);
    expect(await replica().list(id)).toEqual([{ tool: 'echo', sha256: h('a'), seenSha256: h('a'), status: 'approved', described: false }]);
  });

  it('approves the seen definition, leaves approved ones alone, and drops the pins with their server record', async () => {
    const id = await server();
    await replica().pinFirst(
      id,
      [
        { tool: 'echo', sha256: h('a') },
        { tool: 'other', sha256: h('d') },
      ],
      10,
    );
    await replica().markChanged(id, [{ tool: 'echo', sha256: h('b') }]);
    expect(
      await replica().approve(id, [
        { tool: 'echo', sha256: null },
        { tool: 'other', sha256: null },
      ]),
    ).toEqual([
      { tool: 'echo', sha256: h('b'), seenSha256: h('b'), status: 'approved', described: false },
      { tool: 'other', sha256: h('d'), seenSha256: h('d'), status: 'approved', described: false },
    ]);
    await db.dataSource.query('DELETE FROM resource_records WHERE id = $1', [id]);
    expect(await replica().list(id)).toEqual([]);
    await expect(replica().pinFirst(id, [{ tool: 'late', sha256: h('e') }], 10)).resolves.toBeUndefined();
    expect(await replica().list(id)).toEqual([]);
  });

  it('approves a {tool, sha256} only while that is the seen definition', async () => {
    const id = await server();
    await replica().pinFirst(id, [{ tool: 'echo', sha256: h('a') }], 10);
    await replica().markChanged(id, [{ tool: 'echo', sha256: h('b') }]);
    expect(await replica().approve(id, [{ tool: 'echo', sha256: h('c') }])).toEqual([
      { tool: 'echo', sha256: h('a'), seenSha256: h('b'), status: 'changed', described: false },
    ]);
    expect(await replica().approve(id, [{ tool: 'echo', sha256: h('b') }])).toEqual([
      { tool: 'echo', sha256: h('b'), seenSha256: h('b'), status: 'approved', described: false },
    ]);
  });

  it('does not approve the inspected sha256 over a definition another replica noted while the approval waited for the row', async () => {
    const id = await server();
    await replica().pinFirst(id, [{ tool: 'echo', sha256: h('a') }], 10);
    await replica().markChanged(id, [{ tool: 'echo', sha256: h('b') }]);
    const noting = db.dataSource.createQueryRunner();
    const approving = db.dataSource.createQueryRunner();
    try {
      await noting.startTransaction();
      await new TypeormToolPinStore(noting.manager).markChanged(id, [{ tool: 'echo', sha256: h('c') }]);
      await approving.startTransaction();
      const approval = new TypeormToolPinStore(approving.manager).approve(id, [{ tool: 'echo', sha256: h('b') }]);
      // The approval read b as seen before the other write commits; it waits on the row that write holds.
      for (let i = 0; i < 200 && !(await waitingOnLock()); i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(await waitingOnLock()).toBe(true);
      await noting.commitTransaction();
      expect(await approval).toEqual([{ tool: 'echo', sha256: h('a'), seenSha256: h('c'), status: 'changed', described: false }]);
      await approving.commitTransaction();
    } finally {
      await noting.release();
      await approving.release();
    }
    expect(await replica().list(id)).toEqual([{ tool: 'echo', sha256: h('a'), seenSha256: h('c'), status: 'changed', described: false }]);
  });

  it("keeps the approved definition's text: on first sight, for a pin without one, never another definition's, dropped by an approval", async () => {
    const id = await server();
    await replica().pinFirst(
      id,
      [
        { tool: 'echo', sha256: h('a'), text: '{"name":"echo"}' },
        { tool: 'bare', sha256: h('d') },
      ],
      10,
    );
    expect((await replica().list(id)).map((p) => [p.tool, p.described])).toEqual([
      ['bare', false],
      ['echo', true],
    ]);
    expect(await replica().definitions(id)).toEqual([{ tool: 'echo', sha256: h('a'), text: '{"name":"echo"}' }]);
    // Another definition's text is not kept, nor a second text over a kept one.
    await replica().describe(id, [
      { tool: 'bare', sha256: h('e'), text: 'withheld' },
      { tool: 'echo', sha256: h('a'), text: 'second' },
    ]);
    expect(await replica().definitions(id)).toEqual([{ tool: 'echo', sha256: h('a'), text: '{"name":"echo"}' }]);
    await Promise.all([1, 2].map(() => replica().describe(id, [{ tool: 'bare', sha256: h('d'), text: '{"name":"bare"}' }])));
    expect((await replica().definitions(id)).map((d) => d.tool)).toEqual(['bare', 'echo']);
    // A changed definition keeps the approved text but is not offered while changed; its approval drops the text,
    // as it no longer hashes to sha256.
    const [noted] = await replica().markChanged(id, [{ tool: 'echo', sha256: h('b') }]);
    expect(noted).toMatchObject({ status: 'changed', described: true });
    expect((await replica().definitions(id)).map((d) => d.tool)).toEqual(['bare']);
    expect(await replica().approve(id, [{ tool: 'echo', sha256: h('b') }])).toEqual([
      { tool: 'echo', sha256: h('b'), seenSha256: h('b'), status: 'approved', described: false },
    ]);
    expect(await replica().definitions(id)).toEqual([{ tool: 'bare', sha256: h('d'), text: '{"name":"bare"}' }]);
    const [row] = await db.dataSource.query('SELECT definition_text FROM mcp_tool_pins WHERE server_id = $1 AND tool_name = $2', [
      id,
      'echo',
    ]);
    expect(row.definition_text).toBeNull();
    await replica().forgetTexts(id, ['bare', 'echo']);
    expect(await replica().definitions(id)).toEqual([]);
    expect((await replica().list(id)).map((p) => [p.tool, p.status, p.described])).toEqual([
      ['bare', 'approved', false],
      ['echo', 'approved', false],
    ]);
  });
});

async function waitingOnLock(): Promise<boolean> {
  const rows = await db.dataSource.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE mcp_tool_pins%'`,
  );
  return rows.length > 0;
}
