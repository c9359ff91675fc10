import { CachedMcpSessionRepository } from '../../../../src/adapters/persistence/mcp-sessions/cached-mcp-session-repository';
import { InMemoryMcpSessionRepository } from '../../../fakes/in-memory-mcp-session.repository';

const FRESH_MS = 60_000;
const T0 = Date.parse('2026-11-27T10:00:00Z');

function makeSut(options: { listening?: boolean } = {}) {
  const inner = new InMemoryMcpSessionRepository();
  const reads = jest.spyOn(inner, 'findByTokenHash');
  let now = T0;
  const repo = new CachedMcpSessionRepository(inner, FRESH_MS, () => now);
  if (options.listening !== false) repo.channels.forEach((c) => c.enable());
  const open = (tokenHash: string, expiresAt: Date | null = null) =>
    repo.open(
      {
        tokenHash,
        keyId: 'k',
        userId: 'u',
        protocolVersion: '2025-11-25',
        clientCapabilities: {},
        clientInfo: {},
        toolsDigest: 'd',
        now: new Date(T0),
        expiresAt,
      },
      10,
      new Date(0),
    );
  return {
    repo,
    inner,
    reads,
    open,
    later: (ms: number) => void (now += ms),
    notify: (id: string) => repo.channels.forEach((c) => c.evict(id)),
  };
}

describe('CachedMcpSessionRepository', () => {
  it('reads a session once while its last-seen time is within the touch interval', async () => {
    const { repo, reads, open, later } = makeSut();
    const session = await open('h1');
    expect((await repo.findByTokenHash('h1'))?.id).toBe(session.id);
    later(FRESH_MS - 1);
    expect((await repo.findByTokenHash('h1'))?.id).toBe(session.id);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('reads PostgreSQL again once a touch is due, and after a touch, an extension or an end made here', async () => {
    const { repo, reads, open, later } = makeSut();
    const session = await open('h1');
    await repo.findByTokenHash('h1');
    later(FRESH_MS);
    await repo.findByTokenHash('h1');
    expect(reads).toHaveBeenCalledTimes(2);
    await repo.touch(session.id, new Date(T0 + FRESH_MS));
    await repo.findByTokenHash('h1');
    expect(reads).toHaveBeenCalledTimes(3);
    await repo.end(session.id, new Date(T0 + FRESH_MS));
    expect((await repo.findByTokenHash('h1'))?.endedAt).not.toBeNull();
    expect(reads).toHaveBeenCalledTimes(4);
  });

  it("drops a session when any replica's end is notified, and keeps no ended or token session", async () => {
    const { repo, reads, open, notify } = makeSut();
    const session = await open('h1');
    await repo.findByTokenHash('h1');
    notify(session.id);
    await repo.findByTokenHash('h1');
    expect(reads).toHaveBeenCalledTimes(2);
    await open('h2', new Date(T0 + 3_600_000));
    await repo.findByTokenHash('h2');
    await repo.findByTokenHash('h2');
    expect(reads).toHaveBeenCalledTimes(4);
  });

  it('reads through while the change listener is away', async () => {
    const { repo, reads, open } = makeSut({ listening: false });
    await open('h1');
    await repo.findByTokenHash('h1');
    await repo.findByTokenHash('h1');
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
