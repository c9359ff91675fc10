import { ToolCallRecorder, UNAUDITED_MESSAGE } from '../../../../src/adapters/mcp/tool-call-recorder';
import { AuditQueue } from '../../../../src/application/ports/audit-log.port';
import { AuditRecord, NO_ORIGIN } from '../../../../src/domain/audit';
import { DatabaseUnavailableError } from '../../../../src/domain/errors';
import { Registry } from 'prom-client';
import { ToolUsageHook } from '../../../../src/adapters/edge/tool-usage-hook';
import { ToolCallMetrics } from '../../../../src/adapters/observability/tool-call-metrics';
import { UsageTally } from '../../../../src/application/use-cases/usage/usage-tally';
import { FixedClock } from '../../../fakes/fixed-clock';

/** A queue whose appends stay pending until the test commits or fails them. */
function gatedQueue() {
  const appended: { record: AuditRecord; commit: () => void; fail: (error: unknown) => void }[] = [];
  const queue: AuditQueue = {
    append: (record) => new Promise<void>((resolve, reject) => appended.push({ record, commit: resolve, fail: reject })),
  };
  return { queue, appended };
}

function makeSut() {
  const { queue, appended } = gatedQueue();
  const tally = new UsageTally();
  const sut = new ToolCallRecorder(
    queue,
    new FixedClock(),
    new ToolUsageHook(tally, new ToolCallMetrics(new Registry(), 'test_'), new FixedClock()),
  );
  const caller = { keyId: 'k', userId: 'u' };
  const call = { name: 'projects', arguments: { action: 'list' }, requiredScopes: ['projects:read'] };
  return { sut, appended, caller, call, tally };
}

const counted = (tally: UsageTally) => tally.drain().entries.map((e) => [e.keyId, e.tool, e.outcome, e.count]);

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ToolCallRecorder', () => {
  it("returns a call's result only once its event is committed", async () => {
    const { sut, appended, caller, call } = makeSut();
    let answered = false;
    const running = sut
      .run(
        caller,
        NO_ORIGIN,
        call,
        async () => 'result',
        () => 'ok',
      )
      .then((value) => ((answered = true), value));
    await turn();
    expect(appended.map((a) => [a.record.action, a.record.details.outcome])).toEqual([['tool.called', 'ok']]);
    expect(answered).toBe(false);
    appended[0].commit();
    expect(await running).toBe('result');
  });

  it("rethrows a failed call's error once its event is committed", async () => {
    const { sut, appended, caller, call } = makeSut();
    const failure = new Error('tool broke');
    const running = sut.run(
      caller,
      NO_ORIGIN,
      call,
      async () => {
        throw failure;
      },
      () => 'ok',
    );
    await turn();
    expect(appended[0].record.details.outcome).toBe('error');
    appended[0].commit();
    await expect(running).rejects.toBe(failure);
  });

  it("withholds the result, or the call's own error, when its event cannot be written: a JSON-RPC server error instead", async () => {
    const { sut, appended, caller, call } = makeSut();
    const ran = sut.run(
      caller,
      NO_ORIGIN,
      call,
      async () => 'result',
      () => 'ok',
    );
    const broke = sut.run(
      caller,
      NO_ORIGIN,
      call,
      async () => {
        throw new Error('tool broke');
      },
      () => 'ok',
    );
    await turn();
    appended.forEach((a) => a.fail(new DatabaseUnavailableError()));
    for (const running of [ran, broke]) await expect(running).rejects.toMatchObject({ code: -32000, message: UNAUDITED_MESSAGE });
  });

  it('settles a denial as its event does', async () => {
    const { sut, appended, caller, call } = makeSut();
    const denied = sut.denied(caller, NO_ORIGIN, call);
    expect(appended[0].record.action).toBe('tool.denied');
    const outage = new DatabaseUnavailableError();
    appended[0].fail(outage);
    await expect(denied).rejects.toBe(outage);
  });

  describe('usage', () => {
    it('counts a call that ran as called, a refusal as denied, and what usageOf says of a failure', async () => {
      const { sut, appended, caller, call, tally } = makeSut();
      const ran = sut.run(
        caller,
        NO_ORIGIN,
        call,
        async () => 'result',
        () => 'ok',
      );
      const denied = sut.denied(caller, NO_ORIGIN, call);
      const broke = sut.run(
        caller,
        NO_ORIGIN,
        { ...call, name: 'files__echo' },
        async () => {
          throw new Error('upstream gone');
        },
        () => 'ok',
        (_value, failed) => ({ outcome: failed ? 'upstream_error' : 'called' }),
      );
      sut.refused(caller, 'other');
      await turn();
      for (const a of appended) a.commit();
      await Promise.all([ran, denied, broke.catch(() => undefined)]);
      expect(counted(tally).sort()).toEqual(
        [
          ['k', 'files__echo', 'upstream_error', 1],
          ['k', 'other', 'denied', 1],
          ['k', 'projects', 'called', 1],
          ['k', 'projects', 'denied', 1],
        ].sort(),
      );
    });

    it('counts a call after its event is handed to the queue (the write goes first), and before it is answered', async () => {
      const order: string[] = [];
      // As the group-commit queue does: the batch is written on the turn's check phase, and its commit, being
      // I/O, comes back on a later turn (a timer here: however late the machine runs it, it is set after the write).
      const queue: AuditQueue = {
        append: () => {
          order.push('appended');
          return new Promise<void>((resolve) =>
            setImmediate(() => {
              order.push('written');
              setTimeout(() => (order.push('committed'), resolve()), 5);
            }),
          );
        },
      };
      const hook = { record: () => order.push('counted') } as unknown as ToolUsageHook;
      const sut = new ToolCallRecorder(queue, new FixedClock(), hook);
      const call = { name: 'projects', arguments: undefined, requiredScopes: [] };
      await sut
        .run(
          { keyId: 'k', userId: 'u' },
          NO_ORIGIN,
          call,
          async () => 'result',
          () => 'ok',
        )
        .then(() => order.push('answered'));
      expect(order).toEqual(['appended', 'written', 'counted', 'committed', 'answered']);
    });

    it('fails a call whose counting throws, its event still appended, rather than leave it waiting', async () => {
      const { queue, appended } = gatedQueue();
      const broken = new Error('metrics broke');
      const hook = {
        record: () => {
          throw broken;
        },
      } as unknown as ToolUsageHook;
      const sut = new ToolCallRecorder(queue, new FixedClock(), hook);
      const running = sut.run(
        { keyId: 'k', userId: 'u' },
        NO_ORIGIN,
        { name: 'projects', arguments: undefined, requiredScopes: [] },
        async () => 'result',
        () => 'ok',
      );
      await expect(running).rejects.toBe(broken);
      expect(appended.map((a) => a.record.action)).toEqual(['tool.called']);
    });

    it('counts a call made with an access token under the user, with no key', async () => {
      const { sut, appended, call, tally } = makeSut();
      const denied = sut.denied({ keyId: 'subject-sessions', userId: 'u', accessToken: {} }, NO_ORIGIN, call);
      await turn();
      appended[0].commit();
      await denied;
      expect(counted(tally)).toEqual([[null, 'projects', 'denied', 1]]);
    });
  });
});
