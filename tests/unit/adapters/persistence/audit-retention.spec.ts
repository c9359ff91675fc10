import { DataSource } from 'typeorm';
import { AuditRetention } from '../../../../src/adapters/persistence/audit/audit-retention';
import { untyped } from '../../../support/untyped';

const HOUR = 3_600_000;

/** A DataSource that answers keygate_audit_prune with the next of `answers` (an Error is thrown). */
function database(answers: (number | Error)[]) {
  const calls: unknown[][] = [];
  const dataSource = untyped<DataSource>({
    async query(sql: string, params: unknown[]) {
      calls.push([sql, params]);
      const answer = answers.shift() ?? 0;
      if (answer instanceof Error) throw answer;
      return [{ removed: String(answer) }];
    },
  });
  return { dataSource, calls };
}

function makeSut(answers: (number | Error)[]) {
  const { dataSource, calls } = database(answers);
  const pruned: number[] = [];
  const errors: unknown[] = [];
  const retention = new AuditRetention(dataSource, {
    days: 30,
    intervalMs: HOUR,
    onPruned: (n) => pruned.push(n),
    onError: (e) => errors.push(e),
  });
  return { retention, calls, pruned, errors };
}

describe('AuditRetention', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('prunes with the configured days at start, then once per interval, and stops', async () => {
    const { retention, calls, pruned } = makeSut([3, 0, 2]);
    await retention.start();
    expect(calls).toEqual([[expect.stringContaining('keygate_audit_prune(now() - make_interval(days => $1))'), [30]]]);
    await jest.advanceTimersByTimeAsync(HOUR);
    await jest.advanceTimersByTimeAsync(HOUR);
    expect(calls).toHaveLength(3);
    expect(pruned).toEqual([3, 2]);
    await retention.stop();
    await jest.advanceTimersByTimeAsync(3 * HOUR);
    expect(calls).toHaveLength(3);
  });

  it('reports a failed run instead of throwing, and tries again at the next interval', async () => {
    const failure = new Error('database down');
    const { retention, calls, errors, pruned } = makeSut([failure, 4]);
    await expect(retention.start()).resolves.toBeUndefined();
    expect(errors).toEqual([failure]);
    await jest.advanceTimersByTimeAsync(HOUR);
    expect(calls).toHaveLength(2);
    expect(pruned).toEqual([4]);
    await retention.stop();
  });

  it('joins a run in progress rather than starting a second', async () => {
    const { retention, calls } = makeSut([5]);
    const [a, b] = [retention.runOnce(), retention.runOnce()];
    expect(await a).toBe(5);
    expect(await b).toBe(5);
    expect(calls).toHaveLength(1);
  });

  it('does not keep the process alive', async () => {
    const { retention } = makeSut([]);
    const setIntervalSpy = jest.spyOn(global, 'setInterval');
    await retention.start();
    const timer = setIntervalSpy.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await retention.stop();
    setIntervalSpy.mockRestore();
  });
});
