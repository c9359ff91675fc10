import {
  DropReason,
  GroupCommitAuditQueue,
  GroupCommitAuditQueueOptions,
} from '../../../../src/adapters/persistence/audit/group-commit-audit-queue';
import { AuditRecord } from '../../../../src/domain/audit';
import { DatabaseUnavailableError } from '../../../../src/domain/errors';

const event = (n: number): AuditRecord => ({
  action: 'tool.called',
  actor: { type: 'key', id: 'k' },
  userId: null,
  keyId: null,
  target: { type: 'tool', id: `t${n}` },
  occurredAt: new Date(0),
  requestId: null,
  ip: null,
  details: { n },
});
const numbers = (batch: readonly AuditRecord[]) => batch.map((r) => r.details.n as number);

/** A writer whose writes stay in flight until the test ends each one, with success or an error. */
function gatedWriter() {
  const writes: { batch: number[]; end: (error?: Error) => void }[] = [];
  const write = (batch: readonly AuditRecord[]) =>
    new Promise<void>((resolve, reject) => writes.push({ batch: numbers(batch), end: (error) => (error ? reject(error) : resolve()) }));
  return { writes, write, batches: () => writes.map((w) => w.batch) };
}

function makeSut(options: Partial<GroupCommitAuditQueueOptions> = {}) {
  const writer = gatedWriter();
  const warnings: string[] = [];
  const dropped: [number, DropReason][] = [];
  let written = 0;
  const sut = new GroupCommitAuditQueue(
    writer.write,
    { retryMs: 250, batchSize: 3, maxKept: 10, ...options },
    {
      written: (n) => (written += n),
      dropped: (n, reason) => dropped.push([n, reason]),
      warn: (message) => warnings.push(message),
    },
  );
  /** What became of each append: the numbers whose promise resolved, and those rejected with their error. */
  const settled: number[] = [];
  const rejected: [number, unknown][] = [];
  const append = (...ns: number[]) =>
    ns.forEach(
      (n) =>
        void sut.append(event(n)).then(
          () => settled.push(n),
          (error) => rejected.push([n, error]),
        ),
    );
  return { sut, writer, warnings, dropped, append, settled, rejected, written: () => written };
}

/** Lets promise callbacks run, and nothing else: no timer, no clock. */
const microtasks = async () => {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
};

describe('GroupCommitAuditQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("writes the first event at the end of the turn, not on the caller's stack, and resolves its caller once it is committed", async () => {
    const { sut, writer, append, settled, written } = makeSut();
    append(1);
    expect(writer.writes).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(0);
    expect(writer.batches()).toEqual([[1]]);
    expect(settled).toEqual([]);
    writer.writes[0].end();
    await microtasks();
    expect(settled).toEqual([1]);
    expect(written()).toBe(1);
    expect(sut.pendingCount).toBe(0);
  });

  it('gathers the events that arrive while a batch is in flight and writes them as the next batch as soon as it is done, with no wait', async () => {
    const { writer, append, settled } = makeSut({ batchSize: 10 });
    append(1);
    await jest.advanceTimersByTimeAsync(0);
    append(2, 3);
    await jest.advanceTimersByTimeAsync(60_000);
    append(4);
    expect(writer.batches()).toEqual([[1]]); // one write at a time, however long it takes

    writer.writes[0].end();
    await microtasks(); // no timer runs: the next batch starts when the one before ends
    expect(settled).toEqual([1]);
    expect(writer.batches()).toEqual([[1], [2, 3, 4]]);
    append(5);
    writer.writes[1].end();
    await microtasks();
    expect(settled).toEqual([1, 2, 3, 4]);
    expect(writer.batches()).toEqual([[1], [2, 3, 4], [5]]);
    writer.writes[2].end();
    await microtasks();
    expect(settled).toEqual([1, 2, 3, 4, 5]);
  });

  it('writes at most batchSize events per batch, the rest in the batches right after, each caller resolved with its own batch', async () => {
    const { writer, append, settled } = makeSut({ batchSize: 3 });
    append(1, 2, 3, 4, 5, 6, 7);
    await jest.advanceTimersByTimeAsync(0);
    expect(writer.batches()).toEqual([[1, 2, 3]]);
    writer.writes[0].end();
    await microtasks();
    expect(settled).toEqual([1, 2, 3]);
    expect(writer.batches()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    writer.writes[1].end();
    await microtasks();
    writer.writes[2].end();
    await microtasks();
    expect(writer.batches()).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("when the database is away rejects the failed batch's callers and those waiting behind it, not those before; keeps their events and writes them first", async () => {
    const { sut, writer, append, settled, rejected, warnings } = makeSut({ batchSize: 10 });
    append(1);
    await jest.advanceTimersByTimeAsync(0);
    append(2, 3);
    writer.writes[0].end();
    await microtasks();
    append(4); // waits behind [2, 3]
    const outage = new DatabaseUnavailableError();
    writer.writes[1].end(outage);
    await microtasks();
    expect(settled).toEqual([1]);
    expect(rejected).toEqual([
      [2, outage],
      [3, outage],
      [4, outage],
    ]);
    expect(sut.pendingCount).toBe(3);
    expect(warnings).toEqual([expect.stringContaining('could not be written; keeping 3')]);

    append(5); // brings the next try: the kept events first, then its own
    await jest.advanceTimersByTimeAsync(0);
    expect(writer.batches().slice(2)).toEqual([[2, 3, 4]]);
    writer.writes[2].end();
    await microtasks();
    expect(writer.batches().slice(3)).toEqual([[5]]);
    writer.writes[3].end();
    await microtasks();
    expect(settled).toEqual([1, 5]);
    expect(warnings[1]).toContain('written again');
    expect(sut.pendingCount).toBe(0);
  });

  it('tries kept events again after retryMs when no new event comes', async () => {
    const { sut, writer, append } = makeSut();
    append(1);
    await jest.advanceTimersByTimeAsync(0);
    writer.writes[0].end(new DatabaseUnavailableError());
    await microtasks();
    await jest.advanceTimersByTimeAsync(249);
    expect(writer.writes).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(writer.batches()).toEqual([[1], [1]]);
    writer.writes[1].end();
    await microtasks();
    expect(sut.pendingCount).toBe(0);
  });

  it("writes a batch the database refuses event by event, drops only the event it still refuses, and rejects that batch's callers only", async () => {
    const { writer, append, settled, rejected, dropped, written } = makeSut({ batchSize: 10 });
    append(1);
    await jest.advanceTimersByTimeAsync(0);
    append(2, 3);
    writer.writes[0].end();
    await microtasks();
    const refusal = new Error('invalid input syntax');
    writer.writes[1].end(refusal); // [2, 3]
    await microtasks();
    expect(writer.batches().slice(2)).toEqual([[2]]);
    writer.writes[2].end(refusal);
    await microtasks();
    append(4); // arrives while [3] is written alone
    writer.writes[3].end();
    await microtasks();
    expect(writer.batches().slice(3)).toEqual([[3], [4]]);
    writer.writes[4].end();
    await microtasks();
    expect(settled).toEqual([1, 4]);
    expect(rejected).toEqual([
      [2, refusal],
      [3, refusal],
    ]);
    expect(dropped).toEqual([[1, 'rejected']]);
    expect(written()).toBe(3);
  });

  it('past maxKept drops the oldest kept events, counts them, and says so once', async () => {
    const { sut, writer, append, dropped, warnings } = makeSut({ batchSize: 10, maxKept: 5 });
    append(1, 2, 3);
    await jest.advanceTimersByTimeAsync(0);
    writer.writes[0].end(new DatabaseUnavailableError());
    await microtasks();
    append(4, 5, 6, 7);
    await jest.advanceTimersByTimeAsync(0);
    writer.writes[1].end(new DatabaseUnavailableError());
    await microtasks();
    expect(sut.pendingCount).toBe(5);
    expect(dropped).toEqual([[2, 'overflow']]);
    expect(warnings.filter((w) => w.includes('limit'))).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(250);
    expect(writer.batches()[2]).toEqual([3, 4, 5, 6, 7]);
    writer.writes[2].end();
    await microtasks();
    expect(warnings.at(-1)).toContain('2 were dropped');
  });

  it('stop writes everything left, what arrives while it writes included', async () => {
    const { sut, writer, append, settled } = makeSut({ batchSize: 10 });
    append(1, 2);
    const stopping = sut.stop();
    append(3);
    await microtasks();
    writer.writes[0].end();
    await microtasks();
    writer.writes[1].end();
    await stopping;
    expect(writer.batches()).toEqual([[1, 2], [3]]);
    expect(settled).toEqual([1, 2, 3]);
    expect(sut.pendingCount).toBe(0);
  });

  it('stop retries a failing write a few times, then fails naming what is lost', async () => {
    const failing = new GroupCommitAuditQueue(
      async () => {
        throw new DatabaseUnavailableError();
      },
      { retryMs: 250, batchSize: 10, maxKept: 10 },
    );
    void failing.append(event(1)).catch(() => undefined);
    void failing.append(event(2)).catch(() => undefined);
    let outcome: unknown = 'pending';
    void failing.stop().then(
      () => (outcome = 'stopped'),
      (error: Error) => (outcome = error.message),
    );
    await jest.advanceTimersByTimeAsync(399); // three tries, 200 ms apart
    expect(outcome).toBe('pending');
    await jest.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('2 audit events could not be written before shutdown');

    let failures = 1;
    const written: number[] = [];
    const flaky = new GroupCommitAuditQueue(
      async (batch) => {
        if (failures-- > 0) throw new DatabaseUnavailableError();
        written.push(...numbers(batch));
      },
      { retryMs: 60_000, batchSize: 10, maxKept: 10 },
    );
    void flaky.append(event(1)).catch(() => undefined);
    const stopping = flaky.stop();
    await jest.advanceTimersByTimeAsync(200); // its retry in stop, not the 60 s one
    await stopping;
    expect(written).toEqual([1]);
  });
});
