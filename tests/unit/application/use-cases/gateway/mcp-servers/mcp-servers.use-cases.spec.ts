import { randomUUID } from 'node:crypto';
import { UpstreamAddressCheck } from '../../../../../../src/application/ports/upstream-address-check.port';
import { UpstreamRefusal } from '../../../../../../src/application/ports/upstream-refusal';
import { McpServerCaller } from '../../../../../../src/application/use-cases/gateway/mcp-servers/mcp-server-caller';
import { mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { Actor } from '../../../../../../src/domain/actor';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../../../../src/domain/errors';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryUnitOfWork } from '../../../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../../../mothers/actor.mother';
import { makeMcpServerUseCases, makeToolPins } from '../../../../../support/call-tool-service';

const SHA = (c: string) => c.repeat(64);

/** A check that refuses the hosts named in `refused` and records every URL it was asked about. */
class FakeAddressCheck implements UpstreamAddressCheck {
  readonly asked: string[] = [];
  constructor(private readonly refused: string[] = []) {}

  async check(url: string): Promise<void> {
    this.asked.push(url);
    if (this.refused.includes(new URL(url).hostname)) throw UpstreamRefusal.address(`${url} resolves to 10.0.0.1, private`);
  }
}

function makeSut(options: { maxServers?: number; refused?: string[] } = {}) {
  const store = new InMemoryResourceStore();
  const work = new InMemoryUnitOfWork({ records: store });
  const clock = new FixedClock();
  const { pins, store: pinStore } = makeToolPins({ work, clock });
  const addresses = new FakeAddressCheck(options.refused);
  const sut = makeMcpServerUseCases(store, work, clock, pins, mcpServerPolicy(options.maxServers ?? 3), addresses);
  return { sut, store, audit: work.audit, clock, pinStore, addresses };
}

const asUser = (actor: Actor, userId?: string): McpServerCaller => ({
  kind: 'user',
  actor: { ...actor, origin: { requestId: 'req-1', ip: '198.51.100.7' } },
  userId,
});
const files = (more: Record<string, unknown> = {}) => ({ name: 'files', url: 'https://files.example.com/mcp?token=t0p', ...more });

describe('McpServer use-cases for a user over REST', () => {
  it("create stores the server for the token's user, shows header values masked, and records mcp_server.created with the user as actor", async () => {
    const { sut, store, audit, clock } = makeSut();
    const alice = ActorMother.user();
    const created = await sut.create.execute({ caller: asUser(alice), data: files({ headers: { Authorization: 'Bearer s3cret' } }) });
    expect(created.data.headers).toEqual({ Authorization: '********' });
    expect(store.records[0]).toMatchObject({ ownerId: alice.userId, data: { headers: { Authorization: 'Bearer s3cret' } } });
    expect(audit.records).toEqual([
      {
        action: 'mcp_server.created',
        actor: { type: 'user', id: alice.userId },
        userId: alice.userId,
        keyId: null,
        target: { type: 'mcp_server', id: created.id },
        occurredAt: clock.now(),
        requestId: 'req-1',
        ip: '198.51.100.7',
        details: { name: 'files', url_origin: 'https://files.example.com' },
      },
    ]);
    expect(JSON.stringify(audit.records)).not.toMatch(/s3cret|t0p/);
  });

  it('lets an admin act for the user ?user_id= names, and refuses a non-admin naming someone else (403) or a malformed id (400)', async () => {
    const { sut, store, audit } = makeSut();
    const admin = ActorMother.admin();
    const bob = ActorMother.user();
    const created = await sut.create.execute({ caller: asUser(admin, bob.userId), data: files() });
    expect(store.records[0].ownerId).toBe(bob.userId);
    expect(audit.records[0]).toMatchObject({ actor: { type: 'user', id: admin.userId }, userId: bob.userId });
    expect((await sut.get.execute({ caller: asUser(bob), id: created.id })).record.id).toBe(created.id);
    await expect(sut.get.execute({ caller: asUser(ActorMother.user(), bob.userId), id: created.id })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(sut.list.execute({ caller: asUser(bob, 'not-a-uuid') })).rejects.toThrow('user_id: must be a UUID');
  });

  it("lets an admin naming no user get, update and delete any user's server by id, for its owner", async () => {
    const { sut, store, audit } = makeSut();
    const admin = ActorMother.admin();
    const bob = ActorMother.user();
    const created = await sut.create.execute({ caller: asUser(bob), data: files() });
    expect((await sut.get.execute({ caller: asUser(admin), id: created.id })).record.id).toBe(created.id);
    await sut.update.execute({ caller: asUser(admin), id: created.id, data: { name: 'renamed' } });
    expect(store.records[0]).toMatchObject({ ownerId: bob.userId, data: { name: 'renamed' } });
    await sut.remove.execute({ caller: asUser(admin), id: created.id });
    expect(store.records).toEqual([]);
    expect(audit.records.slice(1).map((r) => [r.action, r.actor.id, r.userId])).toEqual([
      ['mcp_server.updated', admin.userId, bob.userId],
      ['mcp_server.deleted', admin.userId, bob.userId],
    ]);
    await expect(sut.get.execute({ caller: asUser(admin), id: randomUUID() })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("answers NotFound alike for an unknown id and another user's server, on get, update and delete, writing nothing", async () => {
    const { sut, store, audit } = makeSut();
    const alice = ActorMother.user();
    const created = await sut.create.execute({ caller: asUser(alice), data: files() });
    const mallory = asUser(ActorMother.user());
    for (const id of [created.id, randomUUID()]) {
      await expect(sut.get.execute({ caller: mallory, id })).rejects.toBeInstanceOf(NotFoundError);
      await expect(sut.update.execute({ caller: mallory, id, data: { name: 'stolen' } })).rejects.toBeInstanceOf(NotFoundError);
      await expect(sut.remove.execute({ caller: mallory, id })).rejects.toBeInstanceOf(NotFoundError);
    }
    expect(store.records[0].data.name).toBe('files');
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_server.created']);
  });

  it('refuses a refused address with the general message only when asked, before writing anything', async () => {
    const { sut, store, audit, addresses } = makeSut({ refused: ['inside.example.com'] });
    const alice = asUser(ActorMother.user());
    const inside = { name: 'inside', url: 'https://inside.example.com/mcp' };
    const refused = await sut.create.execute({ caller: alice, data: inside, checkAddress: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).errors).toEqual([{ field: 'data.url', message: 'upstream address not allowed' }]);
    expect(store.records).toEqual([]);
    // The tool's registrations are refused at connection time only, as they always were.
    await sut.create.execute({ caller: alice, data: inside });
    expect(addresses.asked).toEqual(['https://inside.example.com/mcp']);
    const other = await sut.create.execute({ caller: alice, data: files(), checkAddress: true });
    await expect(
      sut.update.execute({ caller: alice, id: other.id, data: { url: 'https://inside.example.com/x' }, checkAddress: true }),
    ).rejects.toThrow('data.url: upstream address not allowed');
    expect(store.records[1].data.url).toBe(files().url);
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_server.created', 'mcp_server.created']);
    // A bad field or an unknown id is answered before any DNS wait.
    const asked = addresses.asked.length;
    await expect(
      sut.update.execute({ caller: alice, id: other.id, data: { url: 'https://new.example.com/', name: 'NO' }, checkAddress: true }),
    ).rejects.toThrow(/^data.name/);
    await expect(
      sut.update.execute({ caller: alice, id: randomUUID(), data: { url: 'https://new.example.com/' }, checkAddress: true }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(addresses.asked).toHaveLength(asked);
  });

  it('names bad fields, keeps the per-user limit and refuses an over-large record, writing nothing', async () => {
    const { sut, store } = makeSut({ maxServers: 1 });
    const alice = asUser(ActorMother.user());
    await expect(sut.create.execute({ caller: alice, data: { name: 'Bad Name', url: 'ftp://x' } })).rejects.toMatchObject({
      errors: [
        { field: 'data.name', message: expect.any(String) },
        { field: 'data.url', message: expect.any(String) },
      ],
    });
    await expect(sut.create.execute({ caller: alice, data: files({ headers: { X: 'y'.repeat(9000) } }) })).rejects.toThrow(
      /^data: must be at most 8192 bytes/,
    );
    await sut.create.execute({ caller: alice, data: files() });
    await expect(sut.create.execute({ caller: alice, data: files({ name: 'more' }) })).rejects.toBeInstanceOf(ConflictError);
    expect(store.records).toHaveLength(1);
  });

  it('update keeps masked header values, drops them when the url moves to another origin, and names the changed fields', async () => {
    const { sut, store, audit } = makeSut();
    const alice = asUser(ActorMother.user());
    const created = await sut.create.execute({ caller: alice, data: files({ headers: { Authorization: 'Bearer s3cret' } }) });
    const same = await sut.update.execute({
      caller: alice,
      id: created.id,
      data: { headers: { Authorization: '********' }, tool_scopes: { echo: ['chat:read'] } },
    });
    expect(same.record.data).toMatchObject({ headers: { Authorization: '********' }, tool_scopes: { echo: ['chat:read'] } });
    expect(store.records[0].data.headers).toEqual({ Authorization: 'Bearer s3cret' });
    await sut.update.execute({
      caller: alice,
      id: created.id,
      data: { url: 'https://elsewhere.example.net/mcp', headers: { Authorization: '********' } },
    });
    expect(store.records[0].data.headers).toEqual({});
    expect(audit.records.at(-2)?.details.changed).toEqual(['headers', 'tool_scopes']);
  });

  it('approves pinned tools in the update: all or nothing, named in mcp_server.updated', async () => {
    const { sut, audit, pinStore } = makeSut();
    const alice = asUser(ActorMother.user());
    const { id } = await sut.create.execute({ caller: alice, data: files() });
    await pinStore.pinFirst(
      id,
      [
        { tool: 'echo', sha256: SHA('a') },
        { tool: 'other', sha256: SHA('c') },
      ],
      10,
    );
    await pinStore.markChanged(id, [{ tool: 'echo', sha256: SHA('b') }]);

    await expect(sut.update.execute({ caller: alice, id, data: { approve_tools: ['echo', 'ghost'] } })).rejects.toThrow(
      'data.approve_tools[1]: names no tool keygate pinned on this server',
    );
    expect((await pinStore.list(id))[0].status).toBe('changed');
    expect(audit.records).toHaveLength(1);

    const approved = await sut.update.execute({ caller: alice, id, data: { approve_tools: [{ name: 'echo', sha256: SHA('b') }] } });
    expect(approved.pins[0]).toMatchObject({ tool: 'echo', sha256: SHA('b'), status: 'approved' });
    expect(approved.record.data).not.toHaveProperty('approve_tools');
    expect(audit.records[1]).toMatchObject({
      action: 'mcp_server.updated',
      details: { changed: ['approve_tools'], approved_tools: [{ tool: 'echo', sha256: SHA('b') }] },
    });
  });

  it('deletes with mcp_server.deleted naming the server', async () => {
    const { sut, store, audit } = makeSut();
    const alice = asUser(ActorMother.user());
    const { id } = await sut.create.execute({ caller: alice, data: files() });
    await sut.remove.execute({ caller: alice, id });
    expect(store.records).toEqual([]);
    expect(audit.records[1]).toMatchObject({
      action: 'mcp_server.deleted',
      target: { type: 'mcp_server', id },
      details: { name: 'files' },
    });
    await expect(sut.remove.execute({ caller: alice, id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("lists the owner's servers oldest first in pages, each with its pins, and refuses a bad limit or cursor", async () => {
    const { sut, pinStore } = makeSut({ maxServers: 10 });
    const alice = asUser(ActorMother.user());
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) ids.push((await sut.create.execute({ caller: alice, data: files({ name }) })).id);
    await sut.create.execute({ caller: asUser(ActorMother.user()), data: files({ name: 'not-alices' }) });
    await pinStore.pinFirst(ids[0], [{ tool: 'echo', sha256: SHA('a') }], 10);

    const first = await sut.list.execute({ caller: alice, limit: 2 });
    expect(first.servers.map((s) => s.record.data.name)).toEqual(['a', 'b']);
    expect(first.servers[0].pins).toEqual([expect.objectContaining({ tool: 'echo' })]);
    const second = await sut.list.execute({ caller: alice, limit: 2, cursor: first.nextCursor! });
    const third = await sut.list.execute({ caller: alice, limit: 2, cursor: second.nextCursor! });
    expect([...second.servers, ...third.servers].map((s) => s.record.data.name)).toEqual(['c', 'd', 'e']);
    expect(third.nextCursor).toBeNull();
    expect((await sut.list.execute({ caller: alice })).servers).toHaveLength(5);

    for (const limit of [0, 51, 1.5, '2x', ['1', '2']])
      await expect(sut.list.execute({ caller: alice, limit: limit as number })).rejects.toThrow(/^limit: /);
    for (const cursor of ['', 'abc', Buffer.from('offset:01').toString('base64url'), 'x'.repeat(40)]) {
      await expect(sut.list.execute({ caller: alice, cursor })).rejects.toThrow('cursor: is not a cursor from a previous page');
    }
  });
});

describe('McpServer update of a record whose client secret did not decrypt', () => {
  it('wants auth restated, so a kept auth never loses its client secret unseen', async () => {
    const { sut, store } = makeSut();
    const alice = ActorMother.user();
    const auth = { type: 'oauth', client_id: 'kg', client_secret: 'cs-s3cret' };
    const created = await sut.create.execute({ caller: asUser(alice), data: files({ auth }) });
    store.records[0].unreadableSecrets = true;
    store.records[0].data = { ...store.records[0].data, auth: { type: 'oauth', client_id: 'kg' } };
    const update = (data: Record<string, unknown>) =>
      sut.update.execute({ caller: asUser(alice), id: created.id, data: { headers: {}, ...data } });
    await expect(update({ description: 'x' })).rejects.toThrow(/data\.auth: the stored client secret does not decrypt/);
    await expect(update({ auth: { ...auth, client_secret: '********' } })).rejects.toThrow(/data\.auth/);
    await expect(update({ auth })).resolves.toBeDefined();
  });
});
