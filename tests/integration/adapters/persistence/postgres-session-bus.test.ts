import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ChangeListener } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { PostgresMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { MAX_NOTIFY_BYTES, PostgresSessionBus } from '../../../../src/adapters/persistence/mcp-sessions/postgres-session-bus';
import { PostgresSessionEvents } from '../../../../src/adapters/persistence/mcp-sessions/postgres-session-events';
import { createDataSource } from '../../../../src/infrastructure/database/data-source';
import { eventually } from '../../../support/replica';
import { sessionBusContract, waitFor } from '../../../support/session-bus-contract';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

/** Two bus instances on two pools with their own listeners: two replicas of the bus. */
interface BusReplica {
  dataSource: DataSource;
  bus: PostgresSessionBus;
  events: PostgresSessionEvents;
  listener: ChangeListener;
  listening: () => boolean;
}

let db: TestDatabase;
let one: BusReplica;
let two: BusReplica;

async function busReplica(url: string): Promise<BusReplica> {
  const dataSource = createDataSource({ url, poolSize: 3 });
  await dataSource.initialize();
  const events = new PostgresSessionEvents(dataSource, { maxEventsPerSession: 5 });
  const bus = new PostgresSessionBus(dataSource, events);
  let on = false;
  const probe = { channel: 'keygate_mcp_bus', evict: () => undefined, enable: () => void (on = true), disable: () => void (on = false) };
  const listener = new ChangeListener([...bus.channels(), probe], { url });
  await listener.start();
  return { dataSource, bus, events, listener, listening: () => on };
}

beforeAll(async () => {
  db = await createTestDatabase();
  [one, two] = await Promise.all([busReplica(db.url), busReplica(db.url)]);
  await eventually(() => one.listening() && two.listening(), 5000);
});
afterAll(async () => {
  for (const r of [one, two]) {
    await r.listener.stop();
    await r.dataSource.destroy();
  }
  await db.drop();
});

/** A live session row (and its key), as initialize leaves it. */
async function openSession(): Promise<string> {
  const user = randomUUID();
  const [{ id: keyId }] = await db.dataSource.query(
    `INSERT INTO api_keys (name, key_prefix, key_hash, user_id) VALUES ('bus', 'svc_0000', $1, $2) RETURNING id`,
    [randomBytes(32).toString('hex'), user],
  );
  const session = await new PostgresMcpSessionRepository(db.dataSource).open(
    {
      tokenHash: randomBytes(32).toString('hex'),
      keyId,
      userId: user,
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      clientInfo: { name: 't', version: '1' },
      toolsDigest: '0'.repeat(64),
      now: new Date(),
    },
    10,
    new Date(0),
  );
  return session.id;
}

sessionBusContract('the PostgreSQL session bus across two pools', async () => ({
  a: one.bus,
  b: two.bus,
  session: await openSession(),
  end: async (id) => void (await db.dataSource.query('UPDATE mcp_sessions SET ended_at = now() WHERE id = $1', [id])),
}));

describe('the PostgreSQL session bus', () => {
  it('sends a message too large for NOTIFY through a row, read only by the replica that wants it', async () => {
    const session = await openSession();
    const big = { jsonrpc: '2.0', id: 'big', result: { text: 'x'.repeat(MAX_NOTIFY_BYTES * 3) } };
    const answer = one.bus.awaitResponse(session, 'big', 5000);
    await two.bus.deliver(session, big);
    expect(await answer).toEqual(big);
    const [{ n }] = await db.dataSource.query('SELECT count(*)::int AS n FROM mcp_session_bus WHERE session_id = $1', [session]);
    expect(n).toBe(1);
  });

  it('numbers stream events per session, caps the log and wakes the replica watching the stream', async () => {
    const session = await openSession();
    let woken = 0;
    const unwatch = one.bus.watchStream(session, { wake: () => void woken++, end: () => undefined });
    for (let i = 1; i <= 7; i++)
      expect(await two.bus.publishToStream(session, { jsonrpc: '2.0', method: 'notifications/message', params: { i } })).toBe(true);
    await waitFor(() => woken >= 1);
    const kept = await one.events.readAfter(session, 0, 100);
    expect(kept.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(JSON.parse(kept[4].message)).toMatchObject({ params: { i: 7 } });
    expect((await one.events.readAfter(session, 5, 100)).map((e) => e.seq)).toEqual([6, 7]);
    unwatch();
  });

  it("refuses to publish to an ended session and tells the stream's replica it ended", async () => {
    const session = await openSession();
    let ended = false;
    one.bus.watchStream(session, { wake: () => undefined, end: () => void (ended = true) });
    await new PostgresMcpSessionRepository(two.dataSource).end(session, new Date());
    await waitFor(() => ended);
    expect(await two.bus.publishToStream(session, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toBe(false);
  });

  it("ends the sessions of a key deleted in SQL, telling the stream's replica, and leaves TRUNCATE api_keys possible", async () => {
    const session = await openSession();
    let ended = false;
    one.bus.watchStream(session, { wake: () => undefined, end: () => void (ended = true) });
    await db.dataSource.query('DELETE FROM api_keys WHERE id = (SELECT key_id FROM mcp_sessions WHERE id = $1)', [session]);
    await waitFor(() => ended);
    expect(await db.dataSource.query('SELECT id FROM mcp_sessions WHERE id = $1', [session])).toEqual([]);
  });

  it("lets one replica at a time hold a session's stream, and another take over a stale claim", async () => {
    const session = await openSession();
    expect(await one.events.claimStream(session, 'one', 60_000)).toBe(0);
    expect(await two.events.claimStream(session, 'two', 60_000)).toBeNull();
    expect(await one.events.refreshStream(session, 'one')).toBe(true);
    expect(await two.events.refreshStream(session, 'two')).toBe(false);
    await new Promise((r) => setTimeout(r, 30));
    expect(await two.events.claimStream(session, 'two', 10)).toBe(0);
    expect(await one.events.refreshStream(session, 'one')).toBe(false);
    await two.events.releaseStream(session, 'two');
    expect(await one.events.claimStream(session, 'one', 60_000)).toBe(0);
  });

  it("keeps a stream while its key is usable, and a token session's until the token expires", async () => {
    const keyed = await openSession();
    expect(await one.events.claimStream(keyed, 'one', 60_000)).toBe(0);
    expect(await one.events.refreshStream(keyed, 'one')).toBe(true);
    await db.dataSource.query(
      "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = (SELECT key_id FROM mcp_sessions WHERE id = $1)",
      [keyed],
    );
    expect(await one.events.refreshStream(keyed, 'one')).toBe(false);

    // No api_keys row: the session belongs to a token's subject and lives until expires_at.
    const { id: tokenSession } = await new PostgresMcpSessionRepository(db.dataSource).open(
      {
        tokenHash: randomBytes(32).toString('hex'),
        keyId: randomUUID(),
        userId: randomUUID(),
        protocolVersion: '2025-11-25',
        clientCapabilities: {},
        clientInfo: { name: 't', version: '1' },
        toolsDigest: '0'.repeat(64),
        now: new Date(),
        expiresAt: new Date(Date.now() + 60_000),
      },
      10,
      new Date(0),
    );
    expect(await one.events.claimStream(tokenSession, 'one', 60_000)).toBe(0);
    expect(await one.events.refreshStream(tokenSession, 'one')).toBe(true);
    await db.dataSource.query("UPDATE mcp_sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [tokenSession]);
    expect(await one.events.refreshStream(tokenSession, 'one')).toBe(false);
  });
});
