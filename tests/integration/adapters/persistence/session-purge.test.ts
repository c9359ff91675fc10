import { randomBytes, randomUUID } from 'node:crypto';
import { PostgresMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { PostgresSessionEvents } from '../../../../src/adapters/persistence/mcp-sessions/postgres-session-events';
import { PURGE_BATCH, SessionPurge } from '../../../../src/adapters/persistence/mcp-sessions/session-purge';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const HOUR = 3_600_000;

async function session(lastSeen: Date): Promise<string> {
  const [{ id: keyId }] = await db.dataSource.query(
    `INSERT INTO api_keys (name, key_prefix, key_hash, user_id) VALUES ('purge', 'svc_0000', $1, $2) RETURNING id`,
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
      now: lastSeen,
    },
    10,
    new Date(0),
  );
  return opened.id;
}
const ids = async () => await db.dataSource.query<{ id: string; ended_at: Date | null }[]>('SELECT id, ended_at FROM mcp_sessions');

it('ends idle sessions, deletes ended ones, aged events and spent bus rows, in bounded batches', async () => {
  const now = Date.now();
  const idle = await session(new Date(now - 2 * HOUR));
  const live = await session(new Date(now));
  const events = new PostgresSessionEvents(db.dataSource, { maxEventsPerSession: 100 });
  await events.append(live, '{"fresh":true}');
  await events.append(live, '{"old":true}');
  await db.dataSource.query(`UPDATE mcp_session_events SET created_at = now() - interval '1 hour' WHERE message = '{"old":true}'`);
  await db.dataSource.query(
    `INSERT INTO mcp_session_bus (session_id, payload, created_at) VALUES ($1, '{}', now() - interval '1 hour'), ($1, '{}', now())`,
    [live],
  );

  const purge = new SessionPurge(db.dataSource, { idleCutoff: () => new Date(now - HOUR), eventTtlMs: 10 * 60_000 });
  await purge.run();
  // Ended first (which tells its stream's replica), then deleted.
  expect((await ids()).map((s) => s.id)).toEqual([live]);
  expect(idle).not.toBe(live);
  expect((await events.readAfter(live, 0, 10)).map((e) => e.message)).toEqual(['{"fresh":true}']);
  expect((await db.dataSource.query('SELECT count(*)::int AS n FROM mcp_session_bus'))[0].n).toBe(1);
  expect(PURGE_BATCH).toBeLessThanOrEqual(1000);
});
