import { AdmitRequest } from '../../../../src/application/use-cases/usage-limits/admit-request.use-case';
import { ChargeToolCalls } from '../../../../src/application/use-cases/usage-limits/charge-tool-calls.use-case';
import { QuotaExhaustedError, RateLimitedError } from '../../../../src/domain/errors';
import { ActorMother } from '../../../mothers/actor.mother';
import { FixedClock } from '../../../fakes/fixed-clock';
import { InMemoryUsageBudget } from '../../../fakes/in-memory-usage-budget';
import { makeKeyService } from '../../../support/key-service';

function makeSut() {
  const clock = new FixedClock(new Date('2026-06-01T12:00:10.000Z'));
  const budget = new InMemoryUsageBudget();
  return { clock, budget, admit: new AdmitRequest(budget, clock), charge: new ChargeToolCalls(budget, clock) };
}

describe('AdmitRequest', () => {
  it('admits up to the limit per window, then refuses with the seconds left in the window', async () => {
    const { admit, clock } = makeSut();
    const rateLimit = { limit: 2, windowSeconds: 60 };
    await expect(admit.execute({ budgetId: 'b', rateLimit })).resolves.toMatchObject({ admitted: true, remaining: 1, resetSeconds: 50 });
    await admit.execute({ budgetId: 'b', rateLimit });
    const refused = await admit.execute({ budgetId: 'b', rateLimit }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ limit: 2, windowSeconds: 60, retryAfterSeconds: 50 });
    clock.advance(50_000);
    await expect(admit.execute({ budgetId: 'b', rateLimit })).resolves.toMatchObject({ admitted: true });
  });

  it('counts nothing for a key without a rate limit', async () => {
    const { admit } = makeSut();
    await expect(admit.execute({ budgetId: 'b', rateLimit: null })).resolves.toBeNull();
  });
});

describe('ChargeToolCalls', () => {
  it('takes one credit per call, all or none, and refuses when they do not suffice', async () => {
    const { charge, budget, clock } = makeSut();
    await budget.balances.set('b', { remaining: 3, refill: null }, clock.now());
    await expect(charge.execute({ budgetId: 'b', hasQuota: true, calls: 4 })).rejects.toBeInstanceOf(QuotaExhaustedError);
    await charge.execute({ budgetId: 'b', hasQuota: true, calls: 3 });
    await expect(charge.execute({ budgetId: 'b', hasQuota: true, calls: 1 })).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it('refills to the amount at the start of the next period', async () => {
    const { charge, budget, clock } = makeSut();
    await budget.balances.set('b', { remaining: 0, refill: { amount: 2, interval: 'hour' } }, clock.now());
    await expect(charge.execute({ budgetId: 'b', hasQuota: true, calls: 1 })).rejects.toBeInstanceOf(QuotaExhaustedError);
    clock.advance(3_600_000);
    await charge.execute({ budgetId: 'b', hasQuota: true, calls: 2 });
    expect((await budget.balances.read(['b'], clock.now())).get('b')).toBe(0);
  });

  it('charges nothing for a key without a quota, or a POST without tool calls', async () => {
    const { charge } = makeSut();
    await expect(charge.execute({ budgetId: 'b', hasQuota: false, calls: 5 })).resolves.toBeUndefined();
    await expect(charge.execute({ budgetId: 'none', hasQuota: true, calls: 0 })).resolves.toBeUndefined();
  });
});

describe('limits through the key use-cases', () => {
  it('creates with limits, names them in key.updated with the balance set, and rolls onto the same budget', async () => {
    const { createKey, updateKey, rollKey, listKeys, audit, quotas } = makeKeyService();
    const actor = ActorMother.user();
    const { key, quotaRemaining } = await createKey.execute({
      actor,
      name: 'k',
      rateLimit: { limit: 5, window_seconds: 60 },
      quota: { remaining: 9 },
    });
    expect(quotaRemaining).toBe(9);
    expect(key.rateLimit).toEqual({ limit: 5, windowSeconds: 60 });
    expect(key.budgetId).toBe(key.id);

    const updated = await updateKey.execute({ actor, id: key.id, quota: { remaining: 4, refill: { amount: 10, interval: 'day' } } });
    expect(updated.quotaRemaining).toBe(4);
    expect(audit.records.at(-1)).toMatchObject({
      action: 'key.updated',
      details: { changed: { quota: { refill: { amount: 10, interval: 'day' } } }, quota_remaining: 4 },
    });

    const rolled = await rollKey.execute({ actor, id: key.id, graceSeconds: 60 });
    expect(rolled.key.budgetId).toBe(key.id);
    expect(rolled.key.rateLimit).toEqual({ limit: 5, windowSeconds: 60 });
    expect(rolled.quotaRemaining).toBe(4);
    const listed = await listKeys.execute({ actor });
    expect(listed.map((l) => l.quotaRemaining)).toEqual([4, 4]);

    await updateKey.execute({ actor, id: rolled.key.id, quota: null, rateLimit: null });
    expect(quotas.balances.has(key.id)).toBe(false);
    expect(audit.records.at(-1)?.details).toEqual({ changed: { rate_limit: null, quota: null } });
  });
});
