import { randomBytes, randomUUID } from 'node:crypto';
import { ChangeListener } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { CachedUpstreamSessionStore } from '../../../../src/adapters/persistence/mcp-sessions/cached-upstream-session-store';
import { PostgresMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/postgres-mcp-session.repository';
import { PostgresUpstreamSessionStore } from '../../../../src/adapters/persistence/mcp-sessions/postgres-upstream-session-store';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
/** Two replicas' stores over one database, each hearing changes through its own listener. */
let here: CachedUpstreamSessionStore;
let there: CachedUpstreamSessionStore;
const listeners: ChangeListener[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  here = new CachedUpstreamSessionStore(new PostgresUpstreamSessionStore(db.dataSource));
  there = new CachedUpstreamSessionStore(new PostgresUpstreamSessionStore(db.dataSource));
  for (const store of [here, there]) {
    const listener = new ChangeListener(store.channels, { url: db.url });
    await listener.start();
    listeners.push(listener);
  }
});
afterAll(async () => {
  await Promise.all(listeners.map((l) => l.stop()));
  await db?.drop();
});

const SERVER = randomUUID();
const HELD = {
  upstreamSessionId: 'up-1',
  protocolVersion: '2025-11-25',
  serverCapabilities: { logging: {} },
  clientCapabilities: {},
  logLevel: null,
};

async function openSession(): Promise<{ id: string; user: string }> {
  const user = randomUUID();
  const session = await new PostgresMcpSessionRepository(db.dataSource).open(
    {
      tokenHash: randomBytes(32).toString('hex'),
      keyId: randomUUID(),
      userId: user,
      protocolVersion: '2025-11-25',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 't', version: '1' },
      toolsDigest: '0'.repeat(64),
      now: new Date(),
    },
    10,
    new Date(0),
  );
  return { id: session.id, user };
}

/** Reads through `store` until `seen` holds (the other replica's NOTIFY is on its way); fails the test if it never does. */
async function eventually<T>(read: () => Promise<T>, seen: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (seen(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return read();
}

/** How many statements `store.find` sends the database. */
async function statementsOf(find: () => Promise<unknown>): Promise<number> {
  const query = jest.spyOn(db.dataSource, 'query');
  try {
    await find();
    return query.mock.calls.length;
  } finally {
    query.mockRestore();
  }
}

describe('CachedUpstreamSessionStore', () => {
  it("reads a client session's view of a server once, then from memory", async () => {
    const { id, user } = await openSession();
    await here.save(id, SERVER, user, HELD);
    // The save's own NOTIFY comes back to this replica too: once it has, the view stays.
    expect(
      await eventually(
        () => statementsOf(() => here.find(id, SERVER)),
        (n) => n === 0,
      ),
    ).toBe(0);
    expect(await statementsOf(() => here.find(id, SERVER))).toBe(0);
    expect(await here.find(id, SERVER)).toMatchObject({ clientCapabilities: { sampling: {} }, userId: user, held: HELD });
  });

  it('sees a change made on this replica at once', async () => {
    const { id, user } = await openSession();
    expect((await here.find(id, SERVER))?.held).toBeNull();
    await here.save(id, SERVER, user, HELD);
    expect((await here.find(id, SERVER))?.held).toEqual(HELD);
    await here.setHeldLogLevel(id, SERVER, 'info');
    expect((await here.find(id, SERVER))?.held?.logLevel).toBe('info');
    await here.forget(id, SERVER, 'up-1');
    expect((await here.find(id, SERVER))?.held).toBeNull();
  });

  it('drops a view another replica changed: a logging level set, a held session saved, forgotten or taken', async () => {
    const { id, user } = await openSession();
    expect(await there.find(id, SERVER)).toMatchObject({ logLevel: null, held: null });
    await here.setClientLogLevel(id, 'debug');
    expect(
      (
        await eventually(
          () => there.find(id, SERVER),
          (v) => v?.logLevel === 'debug',
        )
      )?.logLevel,
    ).toBe('debug');
    await here.save(id, SERVER, user, HELD);
    expect(
      (
        await eventually(
          () => there.find(id, SERVER),
          (v) => v?.held !== null,
        )
      )?.held,
    ).toEqual(HELD);
    await here.forget(id, SERVER, 'up-1');
    expect(
      (
        await eventually(
          () => there.find(id, SERVER),
          (v) => v?.held === null,
        )
      )?.held,
    ).toBeNull();
    await here.save(id, SERVER, user, { ...HELD, upstreamSessionId: 'up-2' });
    await eventually(
      () => there.find(id, SERVER),
      (v) => v?.held !== null,
    );
    await here.take(id);
    expect(
      (
        await eventually(
          () => there.find(id, SERVER),
          (v) => v?.held === null,
        )
      )?.held,
    ).toBeNull();
  });

  it('drops the views of a client session that ended, on every replica', async () => {
    const { id } = await openSession();
    expect(await there.find(id, SERVER)).not.toBeNull();
    await new PostgresMcpSessionRepository(db.dataSource).end(id, new Date());
    expect(
      await eventually(
        () => there.find(id, SERVER),
        (v) => v === null,
      ),
    ).toBeNull();
  });
});
