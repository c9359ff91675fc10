import { CachedMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/cached-mcp-session.repository';
import { SessionIdlePolicy } from '../../../../src/domain/mcp-session';
import { FixedClock } from '../../../fakes/fixed-clock';
import { InMemoryMcpSessionRepository } from '../../../fakes/in-memory-mcp-session.repository';

const IDLE_SECONDS = 100; // touch interval 10 s

function setUp() {
  const clock = new FixedClock();
  const table = new InMemoryMcpSessionRepository();
  let reads = 0;
  const find = table.findByTokenHash.bind(table);
  table.findByTokenHash = (hash: string) => {
    reads += 1;
    return find(hash);
  };
  const cached = new CachedMcpSessionRepository(table, new SessionIdlePolicy(IDLE_SECONDS), clock, 100);
  const [channel] = cached.channels;
  channel.enable();
  const open = () =>
    cached.open(
      {
        tokenHash: 'h1',
        keyId: 'k1',
        userId: 'u1',
        protocolVersion: '2025-11-25',
        clientCapabilities: {},
        clientInfo: {},
        toolsDigest: 'd',
        now: clock.now(),
      },
      10,
      new Date(0),
    );
  return { clock, table, cached, channel, open, reads: () => reads };
}

describe('CachedMcpSessionRepository', () => {
  it('reads a session once while it is fresh', async () => {
    const { cached, open, reads, clock } = setUp();
    const session = await open();
    expect(await cached.findByTokenHash('h1')).toEqual(session);
    clock.advance(9_000);
    expect(await cached.findByTokenHash('h1')).toEqual(session);
    expect(reads()).toBe(1);
  });

  it("reads again once the copy is due for a touch, so another replica's touches are never missed", async () => {
    const { cached, table, open, reads, clock } = setUp();
    const session = await open();
    await cached.findByTokenHash('h1');
    // Another replica keeps the session alive; this one never hears of it.
    clock.advance(60_000);
    await table.touch(session.id, clock.now());
    clock.advance(60_000);
    const found = await cached.findByTokenHash('h1');
    expect(reads()).toBe(2);
    expect(found?.lastSeenAt).toEqual(new Date(clock.now().getTime() - 60_000));
  });

  it('drops a session when its end is heard, so it is not served from memory after', async () => {
    const { cached, table, channel, open, reads } = setUp();
    const session = await open();
    await cached.findByTokenHash('h1');
    // Ended by another replica: the table changes, then the trigger's NOTIFY arrives.
    await table.end(session.id, new Date());
    channel.evict(session.id);
    expect((await cached.findByTokenHash('h1'))?.endedAt).not.toBeNull();
    expect(reads()).toBe(2);
  });

  it('drops a session it touched, extended or ended itself', async () => {
    const { cached, open, reads, clock } = setUp();
    const session = await open();
    await cached.findByTokenHash('h1');
    await cached.touch(session.id, clock.now());
    await cached.findByTokenHash('h1');
    await cached.extend(session.id, new Date(clock.now().getTime() + 60_000));
    await cached.findByTokenHash('h1');
    await cached.end(session.id, clock.now());
    expect((await cached.findByTokenHash('h1'))?.endedAt).not.toBeNull();
    expect(reads()).toBe(4);
  });

  it('forgets everything on a TRUNCATE and reads through while notifications cannot reach it', async () => {
    const { cached, channel, open, reads } = setUp();
    await open();
    await cached.findByTokenHash('h1');
    channel.evict('*');
    await cached.findByTokenHash('h1');
    expect(reads()).toBe(2);
    channel.disable();
    await cached.findByTokenHash('h1');
    await cached.findByTokenHash('h1');
    expect(reads()).toBe(4);
  });

  it('keeps no miss: an unknown token is read each time', async () => {
    const { cached, reads } = setUp();
    expect(await cached.findByTokenHash('nope')).toBeNull();
    expect(await cached.findByTokenHash('nope')).toBeNull();
    expect(reads()).toBe(2);
  });
});
