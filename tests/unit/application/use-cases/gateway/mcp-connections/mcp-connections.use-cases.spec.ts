import { ConnectMcpServer } from '../../../../../../src/application/use-cases/gateway/mcp-connections/connect-mcp-server.use-case';
import { DisconnectMcpServer } from '../../../../../../src/application/use-cases/gateway/mcp-connections/disconnect-mcp-server.use-case';
import { GetMcpConnection } from '../../../../../../src/application/use-cases/gateway/mcp-connections/get-mcp-connection.use-case';
import { DeleteMcpServer } from '../../../../../../src/application/use-cases/gateway/mcp-servers/delete-mcp-server.use-case';
import { UpdateMcpServer } from '../../../../../../src/application/use-cases/gateway/mcp-servers/update-mcp-server.use-case';
import { mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { McpServerCaller } from '../../../../../../src/application/use-cases/gateway/mcp-servers/mcp-server-caller';
import { SERVERS } from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { Actor } from '../../../../../../src/domain/actor';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../../../../src/domain/errors';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryUnitOfWork } from '../../../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../../../mothers/actor.mother';
import { ANY_ADDRESS, makeToolPins } from '../../../../../support/call-tool-service';

const SECRET = 'sk-personal-SECRET-1234';
const personal = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };

function makeSut() {
  const store = new InMemoryResourceStore();
  const clock = new FixedClock();
  const connections = new InMemoryMcpConnectionStore(() => clock.now());
  const work = new InMemoryUnitOfWork({ records: store, connections });
  const sut = {
    get: new GetMcpConnection(store, connections),
    connect: new ConnectMcpServer(work, clock),
    disconnect: new DisconnectMcpServer(work, clock),
    remove: new DeleteMcpServer(work, clock),
    update: new UpdateMcpServer(work, clock, mcpServerPolicy(3), makeToolPins({ work, clock }).pins, ANY_ADDRESS),
  };
  // null: a record without auth, as every record written before auth existed.
  const server = async (owner: Actor, auth: unknown = personal) =>
    (
      await store.create(owner.userId, SERVERS, {
        name: 'files',
        url: 'https://files.example.com/mcp?k=1',
        ...(auth === null ? {} : { auth }),
      })
    ).id;
  return { sut, store, connections, audit: work.audit, server };
}

const as = (actor: Actor, userId?: string): McpServerCaller => ({
  kind: 'user',
  actor: { ...actor, origin: { requestId: 'req-1', ip: '198.51.100.7' } },
  userId,
});

async function errorOf(pending: Promise<unknown>): Promise<unknown> {
  try {
    await pending;
  } catch (error) {
    return error;
  }
  throw new Error('no error');
}

describe('user_secret connections', () => {
  it("connect stores the caller's secret for their server and records mcp_connection.created with the server's name and origin only", async () => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice);
    const { connected: view } = (await sut.connect.execute({ caller: as(alice), id, secret: SECRET })) as { connected: unknown };
    expect(view).toMatchObject({ serverId: id, authType: 'user_secret', state: 'connected', kind: 'user_secret' });
    expect(JSON.stringify(view)).not.toContain(SECRET);
    expect(await connections.openSecret(alice.userId, id)).toMatchObject({ secret: SECRET });
    expect(audit.records).toEqual([
      expect.objectContaining({
        action: 'mcp_connection.created',
        actor: { type: 'user', id: alice.userId },
        userId: alice.userId,
        target: { type: 'mcp_server', id },
        details: { name: 'files', url_origin: 'https://files.example.com' },
      }),
    ]);
    expect(JSON.stringify(audit.records)).not.toContain(SECRET);
    // Again: the new secret replaces the old.
    await sut.connect.execute({ caller: as(alice), id, secret: 'sk-second' });
    expect(connections.connections).toHaveLength(1);
    expect((await connections.openSecret(alice.userId, id))!.secret).toBe('sk-second');
  });

  it.each([
    ['static', { type: 'static' }, /static auth .*nothing to connect/],
    ['no auth', null, /static auth/],
    ['oauth', { type: 'oauth' }, /oauth auth: it takes no secret/],
    ['token_exchange', { type: 'token_exchange', token_endpoint: 'https://as/t', audience: 'a', client_id: 'c' }, /token_exchange/],
  ])('refuses (400) to connect a server with %s auth, writing nothing', async (_, auth, message) => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice, auth);
    const error = await errorOf(sut.connect.execute({ caller: as(alice), id, secret: SECRET }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual([{ field: 'auth', message: expect.stringMatching(message) }]);
    expect(connections.connections).toEqual([]);
    expect(audit.records).toEqual([]);
  });

  it.each([
    ['a line feed', `${SECRET}\n`],
    ['a carriage return', `${SECRET}\r\nX-Evil: 1`],
    ['a NUL', `${SECRET}\u0000`],
    ['a space at the end', `${SECRET} `],
    ['nothing', ''],
    ['too much', SECRET.repeat(200)],
    ['a number', 7],
  ])('refuses (400) a secret with %s, never quoting it, writing nothing', async (_, secret) => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice);
    const error = await errorOf(sut.connect.execute({ caller: as(alice), id, secret }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[0].field).toBe('secret');
    expect(JSON.stringify((error as ValidationError).errors)).not.toContain('SECRET');
    expect(connections.connections).toEqual([]);
    expect(audit.records).toEqual([]);
  });

  it("answers 404 for another user's server, and refuses an admin connecting as someone else", async () => {
    const { sut, connections, server } = makeSut();
    const [alice, bob, admin] = [ActorMother.user(), ActorMother.user(), ActorMother.admin()];
    const id = await server(alice);
    expect(await errorOf(sut.connect.execute({ caller: as(bob), id, secret: SECRET }))).toBeInstanceOf(NotFoundError);
    expect(await errorOf(sut.connect.execute({ caller: as(admin), id, secret: SECRET }))).toBeInstanceOf(NotFoundError);
    expect(await errorOf(sut.connect.execute({ caller: as(admin, alice.userId), id, secret: SECRET }))).toBeInstanceOf(ForbiddenError);
    expect(connections.connections).toEqual([]);
  });

  it("get shows not_connected, then the state; an admin reads any user's; another user gets 404", async () => {
    const { sut, server } = makeSut();
    const [alice, bob, admin] = [ActorMother.user(), ActorMother.user(), ActorMother.admin()];
    const id = await server(alice);
    expect(await sut.get.execute({ caller: as(alice), id })).toEqual({
      serverId: id,
      authType: 'user_secret',
      state: 'not_connected',
      kind: null,
      scopes: [],
      expiresAt: null,
      account: null,
      createdAt: null,
      updatedAt: null,
    });
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    const connected = await sut.get.execute({ caller: as(alice), id });
    expect(connected).toMatchObject({ state: 'connected', kind: 'user_secret', createdAt: expect.any(Date) });
    expect(await sut.get.execute({ caller: as(admin), id })).toEqual(connected);
    expect(await errorOf(sut.get.execute({ caller: as(bob), id }))).toBeInstanceOf(NotFoundError);
  });

  it('disconnect forgets the connection with mcp_connection.revoked; none is a 404; an admin may disconnect anyone', async () => {
    const { sut, connections, audit, server } = makeSut();
    const [alice, bob, admin] = [ActorMother.user(), ActorMother.user(), ActorMother.admin()];
    const id = await server(alice);
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    expect(await errorOf(sut.disconnect.execute({ caller: as(bob), id }))).toBeInstanceOf(NotFoundError);
    await sut.disconnect.execute({ caller: as(alice), id });
    expect(connections.connections).toEqual([]);
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.created', 'mcp_connection.revoked']);
    expect(audit.records[1]).toMatchObject({ details: { name: 'files', url_origin: 'https://files.example.com' } });
    expect(await errorOf(sut.disconnect.execute({ caller: as(alice), id }))).toBeInstanceOf(NotFoundError);
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    await sut.disconnect.execute({ caller: as(admin), id });
    expect(connections.connections).toEqual([]);
    expect(audit.records.at(-1)).toMatchObject({ action: 'mcp_connection.revoked', actor: { type: 'user', id: admin.userId } });
  });

  it('deleting a server forgets its connection in the same transaction, with mcp_connection.revoked', async () => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice);
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    await sut.remove.execute({ caller: as(alice), id });
    expect(connections.connections).toEqual([]);
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.created', 'mcp_connection.revoked', 'mcp_server.deleted']);
  });

  it.each([
    ['its url moves to another origin', { url: 'https://elsewhere.example.net/mcp' }],
    ['its auth type changes', { auth: { type: 'static' } }],
    ['its user_secret header changes', { auth: { type: 'user_secret', header: 'X-Api-Key' } }],
  ])('forgets every connection to a server when %s, with mcp_connection.revoked', async (_, data) => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice);
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    await sut.update.execute({ caller: as(alice), id, data });
    expect(connections.connections).toEqual([]);
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.created', 'mcp_server.updated', 'mcp_connection.revoked']);
  });

  it('keeps connections through a change that leaves origin and auth as they were', async () => {
    const { sut, connections, audit, server } = makeSut();
    const alice = ActorMother.user();
    const id = await server(alice);
    await sut.connect.execute({ caller: as(alice), id, secret: SECRET });
    await sut.update.execute({
      caller: as(alice),
      id,
      data: { url: 'https://FILES.example.com:443/v2/mcp', auth: { ...personal, prefix: 'Token ' } },
    });
    expect(connections.connections).toHaveLength(1);
    expect(audit.records.map((r) => r.action)).toEqual(['mcp_connection.created', 'mcp_server.updated']);
  });
});
