import { randomUUID } from 'node:crypto';
import { GetUsage } from '../../../../../src/application/use-cases/usage/get-usage.use-case';
import { rowsOf, UsageTally } from '../../../../../src/application/use-cases/usage/usage-tally';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../../../src/domain/errors';
import { UsageOutcome } from '../../../../../src/domain/usage';
import { FixedClock } from '../../../../fakes/fixed-clock';
import { InMemoryApiKeyRepository } from '../../../../fakes/in-memory-api-key.repository';
import { InMemoryUsageStore } from '../../../../fakes/in-memory-usage.store';
import { ActorMother } from '../../../../mothers/actor.mother';
import { ApiKeyMother } from '../../../../mothers/api-key.mother';

const NOW = new Date('2026-11-27T09:00:30.000Z');

function makeSut() {
  const store = new InMemoryUsageStore();
  const keys = new InMemoryApiKeyRepository();
  const sut = new GetUsage(store, keys, new FixedClock(NOW), 5000);
  const user = randomUUID();
  const key = ApiKeyMother.props({ userId: user, name: 'ci', keyPrefix: 'svc_1234' });
  keys.rows.set(key.id, key);
  const count = async (
    calls: { tool?: string; outcome?: UsageOutcome; userId?: string; keyId?: string | null; at?: string; ms?: number }[],
  ) => {
    const tally = new UsageTally();
    for (const c of calls) {
      tally.record({
        userId: c.userId ?? user,
        keyId: c.keyId === undefined ? key.id : c.keyId,
        tool: c.tool ?? 'projects',
        outcome: c.outcome ?? 'called',
        durationMs: c.ms ?? 3,
        at: new Date(c.at ?? '2026-11-27T08:10:00.000Z'),
      });
    }
    await store.add(rowsOf(tally.drain().entries));
  };
  return { sut, store, user, key, count };
}

describe('GetUsage', () => {
  it('defaults to the last 24 hours in hour buckets, aligned, with closed_until a flush interval behind the minute', async () => {
    const { sut, user, count } = makeSut();
    await count([{}, {}, { at: '2026-11-26T07:00:00.000Z' }]);
    const report = await sut.execute({ actor: ActorMother.user(user) });
    expect(report.from.toISOString()).toBe('2026-11-26T09:00:00.000Z');
    expect(report.to.toISOString()).toBe('2026-11-27T10:00:00.000Z');
    expect(report.closedUntil.toISOString()).toBe('2026-11-27T08:59:00.000Z');
    expect(report.series).toEqual([
      {
        group: 'all',
        total: { count: 2, p50Ms: 3.5, p95Ms: 4.85 },
        points: [{ start: new Date('2026-11-27T08:00:00.000Z'), count: 2, p50Ms: 3.5, p95Ms: 4.85 }],
      },
    ]);
  });

  it('keeps at most 50 series, largest first, summing the rest into other', async () => {
    const { sut, user, count } = makeSut();
    await count(Array.from({ length: 60 }, (_, n) => Array.from({ length: n + 1 }, () => ({ tool: `tool-${n}` }))).flat());
    const report = await sut.execute({ actor: ActorMother.user(user), groupBy: 'tool' });
    expect(report.series).toHaveLength(50);
    expect(report.series[0].group).toBe('tool-59');
    expect(report.series[49]).toMatchObject({ group: 'other', total: { count: 66 } });
    expect(report.total.count).toBe((60 * 61) / 2);
  });

  it('names key groups with prefix and name, and key-less calls oauth', async () => {
    const { sut, store, user, key, count } = makeSut();
    store.labels.set(key.id, { prefix: 'svc_1234', name: 'ci' });
    await count([{}, {}, { keyId: null }]);
    const report = await sut.execute({ actor: ActorMother.user(user), groupBy: 'key' });
    expect(report.series.map((s) => [s.group, s.keyPrefix, s.keyName, s.total.count])).toEqual([
      [key.id, 'svc_1234', 'ci', 2],
      ['oauth', undefined, undefined, 1],
    ]);
  });

  it("refuses another user's key (404), another user or group_by=user to a non-admin (403)", async () => {
    const { sut, key } = makeSut();
    const stranger = ActorMother.user();
    await expect(sut.execute({ actor: stranger, keyId: key.id })).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.execute({ actor: stranger, userId: key.userId })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(sut.execute({ actor: stranger, groupBy: 'user' })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('lets an admin read any key, and every user grouped by user', async () => {
    const { sut, user, key, count } = makeSut();
    const other = randomUUID();
    await count([{}, { userId: other, keyId: null }]);
    expect((await sut.execute({ actor: ActorMother.admin(), keyId: key.id })).total.count).toBe(1);
    const byUser = await sut.execute({ actor: ActorMother.admin(), groupBy: 'user' });
    expect(byUser.series.map((s) => s.group).sort()).toEqual([user, other].sort());
  });

  it.each([
    [{ bucket: 'week' }, 'bucket'],
    [{ groupBy: 'day' }, 'group_by'],
    [{ from: '2026-11-27T09:00:00Z', to: '2026-11-27T08:00:00Z' }, 'from'],
    [{ from: '2026-11-27T00:00:00Z', to: '2026-11-28T00:00:01Z', bucket: 'minute' }, 'from'],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-03-02T00:00:01Z' }, 'from'],
    [{ tool: ['a', 'b'] }, 'tool'],
    [{ keyId: 'not-a-uuid' }, 'key_id'],
  ])('refuses %j naming %s', async (input, field) => {
    const { sut, user } = makeSut();
    const error = await sut.execute({ actor: ActorMother.user(user), ...input }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.map((e) => e.field)).toContain(field);
  });
});
