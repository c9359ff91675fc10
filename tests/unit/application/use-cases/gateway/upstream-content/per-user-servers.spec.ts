import { OAuthGrant } from '../../../../../../src/application/ports/mcp-connection-store.port';
import { UpstreamAuthorization, UpstreamTokenSet } from '../../../../../../src/application/ports/upstream-authorization.port';
import { UpstreamReplyError } from '../../../../../../src/application/ports/upstream-content.port';
import { ExchangedTokens } from '../../../../../../src/application/use-cases/gateway/external/exchanged-tokens';
import { UpstreamCredentials } from '../../../../../../src/application/use-cases/gateway/external/upstream-credentials';
import { SERVERS } from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { ConnectionRequiredError, UpstreamFailedError } from '../../../../../../src/domain/errors';
import { LruExpiringCache } from '../../../../../../src/adapters/mcp/upstream/lru-expiring-cache';
import { FakeContentBehaviour, FakeUpstreamContent } from '../../../../../fakes/fake-upstream-content';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeUpstreamContent } from '../../../../../support/upstream-content-use-cases';

const [ALICE, BOB] = ['alice', 'bob'];
const [SECRET_A, SECRET_B] = ['sk-alice-SECRET', 'sk-bob-SECRET'];
const URL = 'https://files.example/mcp';
const personal = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
const NOTES: FakeContentBehaviour = {
  resources: [{ uri: 'file:///a.txt', name: 'a' }],
  resourceTemplates: [{ uriTemplate: 'file:///{name}', name: 'note' }],
  prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }],
  contents: { 'file:///a.txt': 'A' },
  completions: { who: ['world'] },
};
const connectUrl = (id: string) => `https://keygate.example.com/console/#/servers/${id}/connect`;

function makeSut() {
  const clock = new FixedClock();
  const store = new InMemoryResourceStore();
  const connections = new InMemoryMcpConnectionStore();
  const upstream = new FakeUpstreamContent().serve(URL, NOTES);
  const exchanges: string[] = [];
  const authorization = {
    exchange: async ({ subjectToken }: { subjectToken: string }): Promise<UpstreamTokenSet> => {
      exchanges.push(subjectToken);
      return { accessToken: `exchanged-from-${subjectToken}`, scopes: [], tokenType: 'Bearer' };
    },
  } as unknown as UpstreamAuthorization;
  const exchanged = new ExchangedTokens(
    authorization,
    new LruExpiringCache<string>({ maxEntries: 10, now: () => clock.now().getTime() }),
    { hash: (token) => `#${token}` },
    clock,
  );
  const credentials = new UpstreamCredentials(connections, connectUrl, undefined, exchanged);
  const logged: string[] = [];
  const { useCases } = makeUpstreamContent(store, upstream, logged, 3, credentials);
  const register = (owner: string, extra: Record<string, unknown> = {}) =>
    store.create(owner, SERVERS, { name: 'files', url: URL, auth: personal, headers: { 'X-Team': 't1' }, ...extra });
  const as = (userId: string, subjectToken?: string) => ({
    userId,
    scopes: ScopeSetMother.of('mcp_servers:read'),
    ...(subjectToken !== undefined && { subjectToken }),
  });
  /** Every list, the read, the prompt and a completion, as `who` sees them. */
  const everything = async (who: { userId: string; subjectToken?: string }) => ({
    resources: (await useCases.listResources.execute(as(who.userId, who.subjectToken))).items.map((item) => item.uri),
    templates: (await useCases.listResourceTemplates.execute(as(who.userId, who.subjectToken))).items.map((item) => item.uriTemplate),
    prompts: (await useCases.listPrompts.execute(as(who.userId, who.subjectToken))).items.map((item) => item.name),
    read: await useCases.readResource.execute({ ...as(who.userId, who.subjectToken), uri: 'keygate://files/file:///a.txt' }),
    prompt: await useCases.getPrompt.execute({ ...as(who.userId, who.subjectToken), name: 'files__greet', arguments: { who: 'you' } }),
    completion: await useCases.complete.execute({
      ...as(who.userId, who.subjectToken),
      ref: { type: 'ref/prompt', name: 'files__greet' },
      argument: { name: 'who', value: 'w' },
    }),
  });
  return { store, connections, upstream, logged, useCases, register, as, everything, exchanges };
}

const FULL = {
  resources: ['keygate://files/file:///a.txt'],
  templates: ['keygate://files/file:///{name}'],
  prompts: ['files__greet'],
  read: { contents: [{ uri: 'keygate://files/file:///a.txt', mimeType: 'text/plain', text: 'A' }] },
  prompt: { messages: [{ role: 'user', content: { type: 'text', text: 'greet with {"who":"you"}' } }] },
  completion: { completion: { values: ['world'] } },
};

describe("resources and prompts of a per-user server: reached with the calling user's own credential only", () => {
  it('without a connection: absent from every list, and a read, get or completion asks to connect; nothing reaches the upstream', async () => {
    const { upstream, useCases, register, as } = makeSut();
    const record = await register(ALICE);
    for (const list of [useCases.listResources, useCases.listResourceTemplates, useCases.listPrompts])
      expect((await list.execute(as(ALICE))).items).toEqual([]);
    const asked = [
      await useCases.readResource.execute({ ...as(ALICE), uri: 'keygate://files/file:///a.txt' }).catch((e: unknown) => e),
      await useCases.getPrompt.execute({ ...as(ALICE), name: 'files__greet' }).catch((e: unknown) => e),
      await useCases.complete
        .execute({ ...as(ALICE), ref: { type: 'ref/prompt', name: 'files__greet' }, argument: { name: 'who', value: 'w' } })
        .catch((e: unknown) => e),
    ];
    for (const error of asked) {
      expect(error).toBeInstanceOf(ConnectionRequiredError);
      expect(error).toMatchObject({ server: 'files', connectUrl: connectUrl(record.id) });
    }
    expect(upstream.contacts).toEqual([]);
  });

  it("with the caller's secret: every list, read, prompt and completion carries it beside the record's headers", async () => {
    const { connections, upstream, register, everything } = makeSut();
    const record = await register(ALICE);
    await connections.saveSecret(ALICE, record.id, SECRET_A);
    expect(await everything({ userId: ALICE })).toEqual(FULL);
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const headers of upstream.headers) expect(headers).toEqual({ 'X-Team': 't1', Authorization: `Bearer ${SECRET_A}` });
  });

  it("keeps each user's listings and secret apart: B without a connection sees nothing of what A's listed, then only B's secret is sent", async () => {
    const { connections, upstream, useCases, register, as, everything } = makeSut();
    const alices = await register(ALICE);
    const bobs = await register(BOB);
    await connections.saveSecret(ALICE, alices.id, SECRET_A);
    expect(await everything({ userId: ALICE })).toEqual(FULL);
    const seen = upstream.headers.length;
    expect((await useCases.listResources.execute(as(BOB))).items).toEqual([]);
    await expect(useCases.readResource.execute({ ...as(BOB), uri: 'keygate://files/file:///a.txt' })).rejects.toBeInstanceOf(
      ConnectionRequiredError,
    );
    expect(upstream.headers.length).toBe(seen);
    await connections.saveSecret(BOB, bobs.id, SECRET_B);
    expect(await everything({ userId: BOB })).toEqual(FULL);
    for (const headers of upstream.headers.slice(seen)) expect(headers.Authorization).toBe(`Bearer ${SECRET_B}`);
    expect(upstream.lists.length).toBe(6);
  });

  it('takes the secret out of an upstream error it echoes, in the answer and the log', async () => {
    const { connections, upstream, useCases, register, as, logged } = makeSut();
    const record = await register(ALICE);
    await connections.saveSecret(ALICE, record.id, SECRET_A);
    upstream.serve(URL, { ...NOTES, error: new UpstreamReplyError(-32000, `bad token Bearer ${SECRET_A}`) });
    const failure = await useCases.getPrompt.execute({ ...as(ALICE), name: 'files__greet' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UpstreamFailedError);
    expect((failure as Error).message).toMatch(/answered with an error: bad token \*+/);
    await expect(useCases.readResource.execute({ ...as(ALICE), uri: 'keygate://files/file:///a.txt' })).rejects.toThrow();
    expect(`${(failure as Error).message}\n${logged.join('\n')}`).not.toContain(SECRET_A);
  });

  it("reaches an oauth server with the caller's own access token", async () => {
    const { connections, upstream, register, everything } = makeSut();
    const record = await register(ALICE, { auth: { type: 'oauth' } });
    const grant = { tokens: { accessToken: 'at-alice', scopes: [], tokenType: 'Bearer' } } as unknown as OAuthGrant;
    await connections.saveGrant(ALICE, record.id, grant);
    expect(await everything({ userId: ALICE })).toEqual(FULL);
    for (const headers of upstream.headers) expect(headers).toEqual({ 'X-Team': 't1', Authorization: 'Bearer at-alice' });
  });

  it("reaches a token_exchange server with a token exchanged from the caller's own; a key caller gets an error that is no connect prompt", async () => {
    const { upstream, useCases, register, as, everything, exchanges } = makeSut();
    const auth = { type: 'token_exchange', token_endpoint: 'https://as.example/token', audience: 'files', client_id: 'keygate' };
    await register(ALICE, { auth });
    expect((await useCases.listPrompts.execute(as(ALICE))).items).toEqual([]);
    const refused = await useCases.getPrompt.execute({ ...as(ALICE), name: 'files__greet' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamFailedError);
    expect((refused as Error).message).toMatch(/an API key has none/);
    expect(upstream.contacts).toEqual([]);
    expect(await everything({ userId: ALICE, subjectToken: 'eyJ.alice.sig' })).toEqual(FULL);
    expect(exchanges).toEqual(['eyJ.alice.sig']);
    for (const headers of upstream.headers)
      expect(headers).toEqual({ 'X-Team': 't1', Authorization: 'Bearer exchanged-from-eyJ.alice.sig' });
  });
});
