import { randomUUID } from 'node:crypto';
import { topLevel } from '../../../src/domain/resource/resource-record';
import { eventually, Replica, startReplica } from '../../support/replica';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/** A replica's cached MCP server lists follow changes made in SQL, TRUNCATE included. */
let db: TestDatabase;
let replica: Replica;
beforeAll(async () => {
  db = await createTestDatabase();
  replica = await startReplica(db.url);
  await eventually(() => replica.hotPath.resources.lists.isEnabled, 5_000);
});
afterAll(async () => {
  await replica.close();
  await db.drop();
});

const SERVERS = topLevel('mcp_servers');
const insertServer = (userId: string, name: string) =>
  db.dataSource.query(`INSERT INTO resource_records (user_id, resource, data) VALUES ($1, 'mcp_servers', $2)`, [
    userId,
    { name, url: 'https://mcp.example.com/mcp' },
  ]);

it('forgets every cached list within 100 ms when resource_records is truncated', async () => {
  const [alice, bob] = [randomUUID(), randomUUID()];
  await insertServer(alice, 'files');
  await insertServer(bob, 'tickets');
  // The inserts' own notifications may still be arriving, and a load that overlaps one is not kept.
  await eventually(async () => {
    expect(await replica.hotPath.resources.list(alice, SERVERS)).toHaveLength(1);
    expect(await replica.hotPath.resources.list(bob, SERVERS)).toHaveLength(1);
    return replica.hotPath.resources.lists.size === 2;
  }, 2_000);
  // CASCADE: the servers' tool pins reference their records.
  await db.dataSource.query('TRUNCATE resource_records CASCADE');
  await eventually(() => replica.hotPath.resources.lists.size === 0, 100);
  expect(await replica.hotPath.resources.list(alice, SERVERS)).toEqual([]);
});
