import { randomBytes, randomUUID } from 'node:crypto';
import { PostgresMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { PostgresSessionEvents } from '../../../../src/adapters/persistence/mcp-sessions/postgres-session-events';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

async function session(): Promise<string> {
  const [{ id: keyId }] = await db.dataSource.query(
    `INSERT INTO api_keys (name, key_prefix, key_hash, user_id) VALUES ('events', 'svc_0000', $1, $2) RETURNING id`,
    [randomBytes(32).toString('hex'), randomUUID()],
  );
  const opened = await new PostgresMcpSessionRepository(db.dataSource).open(
    {
      tokenHash: randomBytes(32).toString('hex'),
      keyId,
      userId: randomUUID(),
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      clientInfo: {},
      toolsDigest: '0'.repeat(64),
      now: new Date(),
    },
    10,
    new Date(0),
  );
  return opened.id;
}

const seqsOf = async (id: string) =>
  (
    await db.dataSource.query<{ seq: number }[]>('SELECT seq::int AS seq FROM mcp_session_events WHERE session_id = $1 ORDER BY seq', [id])
  ).map((r) => r.seq);

it('keeps the newest events of a session past its bound, each append one statement (one transaction)', async () => {
  const id = await session();
  const other = await session();
  const events = new PostgresSessionEvents(db.dataSource, { maxEventsPerSession: 3 });
  await events.append(other, '{"other":true}');
  const stream = 1795773600000123;
  expect(await events.appendToPostStream(id, stream, stream, '{}', false)).toBe(true);
  for (let i = 0; i < 3; i++) await events.append(id, `{"n":${i}}`);

  const query = jest.spyOn(db.dataSource, 'query');
  try {
    expect(await events.appendToPostStream(id, stream, stream + 1, '{"result":{}}', true)).toBe(true);
    expect(query).toHaveBeenCalledTimes(1);
    expect(await seqsOf(id)).toEqual([3, 4, 5]);
  } finally {
    query.mockRestore();
  }
  expect(await seqsOf(other)).toEqual([1]);
  expect((await events.readAfter(id, 0, 10, stream)).map((e) => [e.seq, e.endsStream])).toEqual([[stream + 1, true]]);
  expect((await events.readAfter(id, stream, 10, stream)).map((e) => e.seq)).toEqual([stream + 1]);
  expect((await events.readAfter(id, stream + 1, 10, stream)).map((e) => e.seq)).toEqual([]);
  expect((await events.readAfter(id, 0, 10, null)).map((e) => e.message)).toEqual(['{"n":1}', '{"n":2}']);
});

it('appends nothing to an ended session', async () => {
  const id = await session();
  await new PostgresMcpSessionRepository(db.dataSource).end(id, new Date());
  const events = new PostgresSessionEvents(db.dataSource, { maxEventsPerSession: 3 });
  expect(await events.appendToPostStream(id, 1795773600000123, 1795773600000123, '{}', false)).toBe(false);
  expect(await seqsOf(id)).toEqual([]);
});
