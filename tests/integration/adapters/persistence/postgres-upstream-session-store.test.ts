import { randomBytes, randomUUID } from 'node:crypto';
import { PostgresMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { PostgresUpstreamSessionStore } from '../../../../src/adapters/persistence/mcp-sessions/postgres-upstream-session-store';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
let store: PostgresUpstreamSessionStore;
beforeAll(async () => {
  db = await createTestDatabase();
  store = new PostgresUpstreamSessionStore(db.dataSource);
});
afterAll(async () => db?.drop());

const SERVER = randomUUID();
const HELD = {
  upstreamSessionId: 'up-1',
  protocolVersion: '2025-11-25',
  serverCapabilities: { logging: {} },
  clientCapabilities: { sampling: {} },
  logLevel: null,
};

async function openSession(capabilities: Record<string, unknown> = { sampling: {}, roots: {} }): Promise<{ id: string; user: string }> {
  const user = randomUUID();
  const session = await new PostgresMcpSessionRepository(db.dataSource).open(
    {
      tokenHash: randomBytes(32).toString('hex'),
      keyId: randomUUID(),
      userId: user,
      protocolVersion: '2025-11-25',
      clientCapabilities: capabilities,
      clientInfo: { name: 't', version: '1' },
      toolsDigest: '0'.repeat(64),
      now: new Date(),
    },
    10,
    new Date(0),
  );
  return { id: session.id, user };
}

describe('PostgresUpstreamSessionStore', () => {
  it("reads the client session's capabilities and level with its held session, in one view", async () => {
    const { id, user } = await openSession();
    expect(await store.find(id, SERVER)).toEqual({
      clientCapabilities: { sampling: {}, roots: {} },
      logLevel: null,
      userId: user,
      held: null,
    });
    await store.save(id, SERVER, user, HELD);
    expect(await store.setClientLogLevel(id, 'debug')).toBe(true);
    await store.setHeldLogLevel(id, SERVER, 'info');
    expect(await store.find(id, SERVER)).toMatchObject({ logLevel: 'debug', held: { ...HELD, logLevel: 'info' } });
    expect((await store.find(id, randomUUID()))?.held).toBeNull();
  });

  it('forgets only the session it names, and keeps the first of two saved at once', async () => {
    const { id, user } = await openSession();
    expect(await store.save(id, SERVER, user, HELD)).toBe(true);
    await store.forget(id, SERVER, 'another');
    expect((await store.find(id, SERVER))?.held?.upstreamSessionId).toBe('up-1');
    expect(await store.save(id, SERVER, user, { ...HELD, upstreamSessionId: 'up-2' })).toBe(false);
    expect((await store.find(id, SERVER))?.held?.upstreamSessionId).toBe('up-1');
    await store.forget(id, SERVER, 'up-1');
    expect(await store.save(id, SERVER, user, { ...HELD, upstreamSessionId: 'up-2' })).toBe(true);
    await store.forget(id, SERVER, 'up-2');
    expect((await store.find(id, SERVER))?.held).toBeNull();
  });

  it('hands the held sessions to one taker only, and keeps nothing for an ended client session', async () => {
    const { id, user } = await openSession();
    await store.save(id, SERVER, user, HELD);
    const [first, second] = await Promise.all([store.take(id), store.take(id)]);
    expect([...first, ...second]).toEqual([{ serverId: SERVER, userId: user, upstreamSessionId: 'up-1', protocolVersion: '2025-11-25' }]);
    await db.dataSource.query('UPDATE mcp_sessions SET ended_at = now() WHERE id = $1', [id]);
    expect(await store.find(id, SERVER)).toBeNull();
    expect(await store.save(id, SERVER, user, HELD)).toBe(false);
    expect(await store.take(id)).toEqual([]);
    expect(await store.setClientLogLevel(id, 'info')).toBe(false);
  });

  it('drops held sessions with their client session', async () => {
    const { id, user } = await openSession();
    await store.save(id, SERVER, user, HELD);
    await db.dataSource.query('DELETE FROM mcp_sessions WHERE id = $1', [id]);
    const [{ count }] = await db.dataSource.query('SELECT count(*)::int AS count FROM mcp_upstream_sessions WHERE client_session_id = $1', [
      id,
    ]);
    expect(count).toBe(0);
  });
});
