import { randomUUID } from 'node:crypto';
import { ToolUsageHook } from '../../../src/adapters/edge/tool-usage-hook';
import { UsageFlusher } from '../../../src/application/use-cases/usage/usage-flusher';
import { UsageTally } from '../../../src/application/use-cases/usage/usage-tally';
import { eventually } from '../../support/replica';
import { appOnOwnPostgres } from '../../support/own-postgres-app';
import { TestApp } from '../../support/test-app';

jest.setTimeout(90_000);

/** This file stops and restarts PostgreSQL, so it has a server of its own. */
const own = appOnOwnPostgres('usage-outage', { USAGE_FLUSH_INTERVAL_MS: '60000' });
const app = (): TestApp => own.t;

const user = randomUUID();
const counted = async () =>
  Object.fromEntries(
    await Promise.all(
      ['tool_usage_minutes', 'tool_usage_hours', 'tool_usage_days'].map(async (table) => {
        const [{ n }] = await app().db.dataSource.query(`SELECT coalesce(sum(count), 0)::int AS n FROM ${table} WHERE user_id = $1`, [
          user,
        ]);
        return [table, n];
      }),
    ),
  );

describe('the usage flusher when PostgreSQL goes away and comes back', () => {
  it('keeps the counts of the flushes that failed and writes them all at the first that succeeds', async () => {
    const hook = app().container.get(ToolUsageHook);
    const flusher = app().container.get(UsageFlusher);
    const call = () => hook.record({ userId: user, keyId: null, tool: 'projects', outcome: 'called', durationMs: 4 });
    call();
    await flusher.flush();
    expect(await counted()).toEqual({ tool_usage_minutes: 1, tool_usage_hours: 1, tool_usage_days: 1 });

    await own.stopDatabase();
    call();
    await flusher.flush();
    call();
    await flusher.flush();
    expect(app().container.get(UsageTally).size).toBeGreaterThan(0);

    await own.startDatabase();
    await eventually(async () => (await counted().catch(() => null)) !== null, 20_000, 100);
    await flusher.flush();
    expect(await counted()).toEqual({ tool_usage_minutes: 3, tool_usage_hours: 3, tool_usage_days: 3 });
  });
});
