import { BatchingAuditQueue, BatchingAuditQueueOptions, DropReason } from '../../../../src/adapters/persistence/audit/batching-audit-queue';
import { AuditRecord } from '../../../../src/domain/audit';
import { DatabaseUnavailableError } from '../../../../src/domain/errors';

const event = (n: number): AuditRecord => ({
  action: 'tool.called', actor: { type: 'key', id: 'k' }, userId: null, keyId: null, target: { type: 'tool', id: `t${n}` },
  occurredAt: new Date(0), requestId: null, ip: null, details: { n },
});
const numbers = (batch: readonly AuditRecord[]) => batch.map((r) => r.details.n);

/** A writer that keeps each batch it was given, and fails while told to. */
function fakeWriter() {
  const batches: number[][] = [];
  let failWith: ((batch: readonly AuditRecord[]) => unknown) | null = null;
  let calls = 0;
  const write = async (batch: readonly AuditRecord[]) => {
    calls += 1;
    await Promise.resolve();
    const error = failWith?.(batch);
    if (error) throw error;
    batches.push(numbers(batch) as number[]);
  };
  return {
    batches,
    write,
    get calls() { return calls; },
    failWith(f: ((batch: readonly AuditRecord[]) => unknown) | null) { failWith = f; },
    written: () => batches.flat(),
  };
}

function makeSut(options: Partial<BatchingAuditQueueOptions> = {}) {
  const writer = fakeWriter();
  const warnings: string[] = [];
  const dropped: [number, DropReason][] = [];
  let written = 0;
  const sut = new BatchingAuditQueue(writer.write, { intervalMs: 250, batchSize: 3, maxPending: 10, ...options }, {
    written: (n) => (written += n),
    dropped: (n, reason) => dropped.push([n, reason]),
    warn: (message) => warnings.push(message),
  });
  const enqueue = (from: number, to: number) => { for (let n = from; n <= to; n += 1) sut.enqueue(event(n)); };
  return { sut, writer, warnings, dropped, enqueue, written: () => written };
}

describe('BatchingAuditQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes nothing on enqueue, then what is pending at each tick, in order', async () => {
    const { sut, writer, enqueue, written } = makeSut({ batchSize: 3 });
    sut.start();
    enqueue(1, 2);
    expect(writer.calls).toBe(0);
    await jest.advanceTimersByTimeAsync(249);
    expect(writer.calls).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(writer.batches).toEqual([[1, 2]]);
    enqueue(3, 4);
    await jest.advanceTimersByTimeAsync(250);
    expect(writer.batches).toEqual([[1, 2], [3, 4]]);
    expect(written()).toBe(4);
    await sut.stop();
  });

  it('writes a batch as soon as it fills, without waiting for the timer', async () => {
    const { sut, writer, enqueue } = makeSut({ batchSize: 3, intervalMs: 60_000 });
    sut.start();
    enqueue(1, 7);
    expect(writer.calls).toBe(0); // not on the caller's stack
    await jest.advanceTimersByTimeAsync(0);
    expect(writer.batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    await sut.stop();
  });

  it('runs one flush at a time', async () => {
    const writer = fakeWriter();
    let inFlight = 0;
    let most = 0;
    const sut = new BatchingAuditQueue(async (batch) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 100));
      await writer.write(batch);
      inFlight -= 1;
    }, { intervalMs: 10, batchSize: 2, maxPending: 100 });
    sut.start();
    for (let n = 1; n <= 9; n += 1) sut.enqueue(event(n));
    await Promise.all([sut.flush(), sut.flush(), jest.advanceTimersByTimeAsync(1000)]);
    expect(most).toBe(1);
    expect(writer.written()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await sut.stop();
  });

  it('keeps the events while the database is away, retries at each tick in the same order, and warns once', async () => {
    const { sut, writer, enqueue, warnings } = makeSut({ batchSize: 2 });
    sut.start();
    writer.failWith(() => new DatabaseUnavailableError());
    enqueue(1, 3);
    await jest.advanceTimersByTimeAsync(250 * 4);
    expect(writer.calls).toBeGreaterThanOrEqual(4);
    expect(writer.batches).toEqual([]);
    expect(sut.pendingCount).toBe(3);
    expect(warnings).toEqual([expect.stringContaining('could not be written; keeping 3')]);
    enqueue(4, 4);
    writer.failWith(null);
    await jest.advanceTimersByTimeAsync(250);
    expect(writer.written()).toEqual([1, 2, 3, 4]);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('written again');
    await sut.stop();
  });

  it('past maxPending drops the oldest, counts them, and says so once', async () => {
    const { sut, writer, enqueue, dropped, warnings } = makeSut({ batchSize: 3, maxPending: 5 });
    sut.start();
    writer.failWith(() => new DatabaseUnavailableError());
    enqueue(1, 2);
    await jest.advanceTimersByTimeAsync(250);
    enqueue(3, 9);
    await jest.advanceTimersByTimeAsync(250);
    expect(sut.pendingCount).toBe(5);
    expect(dropped.reduce((sum, [n]) => sum + n, 0)).toBe(4);
    expect(dropped.every(([, reason]) => reason === 'overflow')).toBe(true);
    expect(warnings.filter((w) => w.includes('limit'))).toHaveLength(1);
    writer.failWith(null);
    await jest.advanceTimersByTimeAsync(250);
    expect(writer.written()).toEqual([5, 6, 7, 8, 9]);
    expect(warnings.at(-1)).toContain('4 were dropped');
    await sut.stop();
  });

  it('writes a batch the database refuses event by event, and drops only the event it still refuses', async () => {
    const { sut, writer, enqueue, dropped } = makeSut({ batchSize: 3 });
    writer.failWith((batch) => (numbers(batch).includes(2) ? new Error('invalid input syntax') : undefined));
    enqueue(1, 4);
    await sut.flush();
    expect(writer.written()).toEqual([1, 3, 4]);
    expect(dropped).toEqual([[1, 'rejected']]);
  });

  it('stop writes everything left, the last partial batch included, and what arrives while it writes', async () => {
    const { sut, writer, enqueue } = makeSut({ batchSize: 3, intervalMs: 60_000 });
    sut.start();
    enqueue(1, 2);
    const stopping = sut.stop();
    enqueue(3, 4);
    await stopping;
    expect(writer.written()).toEqual([1, 2, 3, 4]);
    expect(sut.pendingCount).toBe(0);
  });

  it('stop retries a failing write a few times, then fails naming what is lost', async () => {
    jest.useRealTimers();
    const { sut, writer, enqueue } = makeSut();
    sut.start();
    writer.failWith(() => new DatabaseUnavailableError());
    enqueue(1, 2);
    await expect(sut.stop()).rejects.toThrow('2 audit events could not be written before shutdown');
    expect(writer.calls).toBe(3);

    const { sut: again, writer: flaky, enqueue: add } = makeSut();
    let failures = 1;
    flaky.failWith(() => (failures-- > 0 ? new DatabaseUnavailableError() : undefined));
    add(1, 2);
    await again.stop();
    expect(flaky.written()).toEqual([1, 2]);
  });
});
