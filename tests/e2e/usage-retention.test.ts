import { randomUUID } from 'node:crypto';
import { TypeormUsageStore } from '../../src/adapters/persistence/tool-usage/typeorm-usage-store';
import { UsageRetention } from '../../src/adapters/persistence/tool-usage/usage-retention';
import { rowsOf } from '../../src/application/use-cases/usage/usage-tally';
import { emptyHistogram } from '../../src/domain/usage';
import { startTestApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ USAGE_RETENTION_DAYS: '30' });
});
afterAll(() => t?.close());

const entry = (daysAgo: number) => ({
  bucketStart: new Date(Math.floor((Date.now() - daysAgo * DAY) / 60_000) * 60_000),
  userId: randomUUID(),
  keyId: null,
  tool: 'projects',
  outcome: 'called' as const,
  count: 1,
  latencySumMs: 1,
  histogram: emptyHistogram().map((_, index) => (index === 0 ? 1 : 0)),
});
const counts = async () =>
  Object.fromEntries(
    await Promise.all(
      ['tool_usage_minutes', 'tool_usage_hours', 'tool_usage_days'].map(async (table) => {
        const [{ n }] = await t.db.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`);
        return [table, n];
      }),
    ),
  );

describe('usage retention (USAGE_RETENTION_DAYS)', () => {
  it('removes minute buckets past USAGE_RETENTION_DAYS and hour and day buckets past 400 days', async () => {
    await t.container.get(TypeormUsageStore).add(rowsOf([entry(1), entry(40), entry(500)]));
    expect(await counts()).toEqual({ tool_usage_minutes: 3, tool_usage_hours: 3, tool_usage_days: 3 });
    expect(await t.container.get(UsageRetention).runOnce()).toBe(4);
    expect(await counts()).toEqual({ tool_usage_minutes: 1, tool_usage_hours: 2, tool_usage_days: 2 });
    expect(await t.container.get(UsageRetention).runOnce()).toBe(0);
  });
});
