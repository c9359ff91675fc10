import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { PostgresToolCallApprovalStore } from '../../../../src/adapters/persistence/approvals/postgres-tool-call-approval.store';
import { TypeormApiKeyRepository } from '../../../../src/adapters/persistence/typeorm-api-key.repository';
import { NewApproval } from '../../../../src/application/ports/tool-call-approval-store.port';
import { ApiKeyMother } from '../../../mothers/api-key.mother';
import { tablesContaining } from '../../../support/plaintext-scan';
import { createTestDatabase, TestDatabase } from '../../../support/test-database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const box = new AesGcmSecretBox(randomBytes(32));
const store = () => new PostgresToolCallApprovalStore(db.dataSource.manager, box);

async function newKey(userId = randomUUID()): Promise<string> {
  return (await new TypeormApiKeyRepository(db.dataSource.manager).insertWithinLimit(ApiKeyMother.unsaved({ userId }), 10))!.id;
}

function approval(keyId: string, userId: string, overrides: Partial<NewApproval> = {}): NewApproval {
  const now = new Date();
  return {
    keyId,
    userId,
    tool: 'srv-id/write',
    toolName: 'files__write',
    serverName: 'files',
    recordId: 'srv-id',
    recordVersion: '2026-06-01T00:00:00.000Z',
    argumentsSha256: 'a'.repeat(64),
    arguments: { path: '/a', token: `secret-${randomBytes(8).toString('hex')}` },
    ruleIndex: 0,
    ruleMessage: 'needs a yes',
    approvers: 'owner',
    createdAt: now,
    expiresAt: new Date(now.getTime() + 60_000),
    ...overrides,
  };
}

describe('PostgresToolCallApprovalStore', () => {
  it('keeps the arguments sealed, reads them back for the approver, and finds the approval by its binding', async () => {
    const user = randomUUID();
    const key = await newKey(user);
    const input = approval(key, user);
    const created = (await store().createWithinLimit(input, 5, new Date()))!;
    expect(created).toMatchObject({ state: 'pending', arguments: input.arguments, keyId: key, approvers: 'owner', decidedBy: null });
    expect(await tablesContaining(db.dataSource, String(input.arguments.token))).toEqual([]);
    expect(await store().find(created.id)).toEqual(created);
    expect((await store().latestFor(input))?.id).toBe(created.id);
    expect(await store().latestFor({ ...input, argumentsSha256: 'b'.repeat(64) })).toBeNull();
    expect(await store().latestFor({ ...input, recordVersion: 'other' })).toBeNull();
    // Another service key cannot open them: the approver sees none rather than a failure.
    expect(
      (await new PostgresToolCallApprovalStore(db.dataSource.manager, new AesGcmSecretBox(randomBytes(32))).find(created.id))?.arguments,
    ).toEqual({});
  });

  it('holds at most maxPending live pending approvals per key', async () => {
    const user = randomUUID();
    const key = await newKey(user);
    for (let i = 0; i < 2; i++) expect(await store().createWithinLimit(approval(key, user), 2, new Date())).not.toBeNull();
    expect(await store().createWithinLimit(approval(key, user), 2, new Date())).toBeNull();
    expect(await store().createWithinLimit(approval(await newKey(user), user), 2, new Date())).not.toBeNull();
  });

  it('decides a pending, unexpired approval once, and lists only what the decider may decide', async () => {
    const [user, other] = [randomUUID(), randomUUID()];
    const key = await newKey(user);
    const mine = (await store().createWithinLimit(approval(key, user), 5, new Date()))!;
    const admins = (await store().createWithinLimit(approval(key, user, { approvers: 'admin' }), 5, new Date()))!;
    const now = new Date();
    expect((await store().listPending({ decider: { userId: user, admin: false } }, now, 10)).map((a) => a.id)).toEqual([mine.id]);
    expect((await store().listPending({ decider: { userId: other, admin: true } }, now, 10)).map((a) => a.id)).toEqual([admins.id]);
    expect(await store().listPending({ decider: { userId: other, admin: true }, ownerId: other }, now, 10)).toEqual([]);
    const [a, b] = await Promise.all([store().decide(mine.id, 'granted', user, now), store().decide(mine.id, 'denied', user, now)]);
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    expect(await store().decide(admins.id, 'granted', other, new Date(Date.now() + 120_000))).toBeNull();
  });

  it('lets exactly one of many concurrent consumers use a granted approval, and none an expired one', async () => {
    const user = randomUUID();
    const key = await newKey(user);
    const created = (await store().createWithinLimit(approval(key, user), 5, new Date()))!;
    expect(await store().consume(created.id, new Date())).toBe(false);
    await store().decide(created.id, 'granted', user, new Date());
    const wins = await Promise.all(
      Array.from({ length: 8 }, () =>
        db.dataSource.transaction((manager) => new PostgresToolCallApprovalStore(manager, box).consume(created.id, new Date())),
      ),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect((await store().find(created.id))?.state).toBe('used');
    const late = (await store().createWithinLimit(approval(key, user), 5, new Date()))!;
    await store().decide(late.id, 'granted', user, new Date());
    expect(await store().consume(late.id, new Date(Date.now() + 120_000))).toBe(false);
  });

  it("drops a key's approvals a day past their expiry when it holds a new one", async () => {
    const user = randomUUID();
    const key = await newKey(user);
    const long = new Date(Date.now() - 2 * 86_400_000);
    const old = (await store().createWithinLimit(approval(key, user, { createdAt: long, expiresAt: long }), 5, long))!;
    const recent = (await store().createWithinLimit(approval(key, user, { expiresAt: new Date(Date.now() - 1000) }), 5, new Date()))!;
    expect(await store().find(old.id)).toBeNull();
    expect(await store().find(recent.id)).not.toBeNull();
  });
});
