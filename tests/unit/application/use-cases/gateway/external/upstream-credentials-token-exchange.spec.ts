import { createHash } from 'node:crypto';
import { ToolListing } from '../../../../../../src/application/ports/upstream-mcp.port';
import { UpstreamReplyError } from '../../../../../../src/application/ports/upstream-content.port';
import {
  ExchangeInput,
  UpstreamAuthorization,
  UpstreamAuthorizationError,
  UpstreamTokenSet,
} from '../../../../../../src/application/ports/upstream-authorization.port';
import { ExchangedTokens } from '../../../../../../src/application/use-cases/gateway/external/exchanged-tokens';
import { UpstreamCredentials } from '../../../../../../src/application/use-cases/gateway/external/upstream-credentials';
import { UpstreamToolDirectory } from '../../../../../../src/application/use-cases/gateway/external/upstream-tool-directory';
import { SERVERS } from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { LruExpiringCache } from '../../../../../../src/adapters/mcp/upstream/lru-expiring-cache';
import { LruLoadingCache } from '../../../../../../src/adapters/mcp/upstream/lru-loading-cache';
import { FakeUpstreamMcp } from '../../../../../fakes/fake-upstream-mcp';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeToolPins } from '../../../../../support/call-tool-service';

const TOOLS = [{ name: 'echo', inputSchema: { type: 'object' } }];
const ALICE = 'alice';
const SUBJECT = 'eyJ.alice-subject-token.sig';
const ALL = ScopeSetMother.of('mcp_servers:read', 'mcp_servers:write');
const URL = 'https://files.example/mcp';
const MINUTE = 60_000;
const exchangeAuth = {
  type: 'token_exchange',
  token_endpoint: 'https://as.example/token',
  audience: 'https://files.example',
  client_id: 'keygate',
  client_secret: 'keygate-secret',
};

/** The authorization server's token endpoint: each exchange a new token, living `lifetimeMs`, unless refused. */
class FakeExchange {
  readonly exchanges: ExchangeInput[] = [];
  refusal: UpstreamAuthorizationError | null = null;
  lifetimeMs: number | undefined = 10 * MINUTE;
  constructor(private readonly clock: FixedClock) {}
  async exchange(input: ExchangeInput): Promise<UpstreamTokenSet> {
    this.exchanges.push(input);
    await Promise.resolve();
    if (this.refusal) throw this.refusal;
    return {
      accessToken: `upstream-${this.exchanges.length}`,
      ...(this.lifetimeMs !== undefined && { expiresAt: new Date(this.clock.now().getTime() + this.lifetimeMs) }),
      scopes: [],
      tokenType: 'Bearer',
    };
  }
}

function makeSut() {
  const clock = new FixedClock();
  const store = new InMemoryResourceStore();
  const upstream = new FakeUpstreamMcp().serve(URL, { tools: TOOLS });
  const authorization = new FakeExchange(clock);
  const logged: string[] = [];
  const exchanged = new ExchangedTokens(
    authorization as unknown as UpstreamAuthorization,
    new LruExpiringCache<string>({ maxEntries: 100, now: () => clock.now().getTime() }),
    { hash: (token) => createHash('sha256').update(token).digest('hex') },
    clock,
  );
  const connections = new InMemoryMcpConnectionStore();
  const directory = new UpstreamToolDirectory(
    store,
    upstream,
    new LruLoadingCache<ToolListing>({ maxEntries: 100, maxChars: 1_000_000, ttlMs: 60 * MINUTE, now: () => clock.now().getTime() }),
    (m) => logged.push(m),
    makeToolPins().pins,
    new UpstreamCredentials(connections, (id) => `/console/#/servers/${id}/connect`, undefined, exchanged),
  );
  const register = (extra: Record<string, unknown> = {}) =>
    store.create(ALICE, SERVERS, {
      name: 'files',
      url: URL,
      auth: exchangeAuth,
      headers: { Authorization: 'Bearer shared', 'X-Team': 't1' },
      ...extra,
    });
  const call = async (subjectToken?: string) => {
    const tool = (await directory.resolve(ALICE, 'files__echo', undefined, subjectToken))!;
    return directory.run(tool, {});
  };
  const names = async (subjectToken?: string) => (await directory.catalog(ALICE, ALL, undefined, subjectToken)).map((tool) => tool.name);
  return { clock, store, upstream, authorization, logged, directory, register, call, names };
}

describe("UpstreamCredentials: a token_exchange server is reached with a token exchanged from the caller's own", () => {
  it("exchanges the caller's access token at the record's endpoint, for its audience, with its client, and sends the result as Bearer", async () => {
    const { upstream, authorization, register, call, names } = makeSut();
    await register();
    expect(await names(SUBJECT)).toEqual(['files__echo']);
    expect(await call(SUBJECT)).toMatchObject({ kind: 'relayed' });
    expect(authorization.exchanges).toEqual([
      {
        tokenEndpoint: 'https://as.example/token',
        client: { clientId: 'keygate', clientSecret: 'keygate-secret' },
        subjectToken: SUBJECT,
        audience: 'https://files.example',
      },
    ]);
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const headers of upstream.headers) expect(headers).toEqual({ Authorization: 'Bearer upstream-1', 'X-Team': 't1' });
  });

  it('exchanges once for a run of calls, again shortly before the token expires, for another subject token, and for an edited record', async () => {
    const { clock, authorization, store, register, call } = makeSut();
    const record = await register();
    for (let i = 0; i < 4; i += 1) expect(await call(SUBJECT)).toMatchObject({ kind: 'relayed' });
    expect(authorization.exchanges).toHaveLength(1);
    // Ten minutes of life, dropped thirty seconds before the end.
    clock.advance(9 * MINUTE + 29_000);
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(1);
    clock.advance(2_000);
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(2);
    await call('eyJ.another-token-of-alice.sig');
    expect(authorization.exchanges).toHaveLength(3);
    clock.advance(1_000);
    await store.update(ALICE, SERVERS, record.id, { ...record.data, description: 'edited' });
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(4);
  });

  it('keeps a token without an expiry a minute, and one living under a minute half its life', async () => {
    const { clock, authorization, register, call } = makeSut();
    await register();
    authorization.lifetimeMs = undefined;
    await call(SUBJECT);
    clock.advance(MINUTE - 1);
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(1);
    clock.advance(2);
    authorization.lifetimeMs = 20_000;
    await call(SUBJECT);
    clock.advance(9_000);
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(2);
    clock.advance(2_000);
    await call(SUBJECT);
    expect(authorization.exchanges).toHaveLength(3);
  });

  it('gives a caller with a key (no subject token) a tool error, not a connect prompt: nothing listed, exchanged or sent', async () => {
    const { upstream, authorization, register, call, names } = makeSut();
    await register();
    expect(await names()).toEqual([]);
    expect(await call()).toEqual({
      kind: 'error',
      message:
        "The MCP server files takes the caller's own OAuth access token (token_exchange auth), and an API key has none: call it with an OAuth access token on /mcp",
    });
    expect(authorization.exchanges).toEqual([]);
    expect(upstream.contacts).toEqual([]);
  });

  it('answers a refused exchange with a tool error naming the server and the short code only, keeps nothing, and contacts nothing', async () => {
    const { upstream, authorization, register, call, names } = makeSut();
    await register();
    authorization.refusal = new UpstreamAuthorizationError(
      'grant_refused',
      'the token endpoint refused the grant: invalid_grant',
      'invalid_grant',
      `subject_token ${SUBJECT} is not valid, see https://evil.example`,
    );
    expect(await names(SUBJECT)).toEqual([]);
    const outcome = await call(SUBJECT);
    expect(outcome).toEqual({
      kind: 'error',
      message:
        'The MCP server files was not contacted: the token exchange at its authorization server failed (grant_refused: invalid_grant)',
    });
    expect(upstream.contacts).toEqual([]);
    authorization.refusal = new UpstreamAuthorizationError('unreachable', 'no answer', 'not a code, said <b>loudly</b>');
    expect(await call(SUBJECT)).toMatchObject({ message: expect.stringMatching(/failed \(unreachable\)$/) });
    authorization.refusal = null;
    expect(await call(SUBJECT)).toMatchObject({ kind: 'relayed' });
    expect(authorization.exchanges).toHaveLength(4);
  });

  it('takes the exchanged token out of an upstream error it echoes; the subject token is in no answer or log line', async () => {
    const { upstream, register, call, logged } = makeSut();
    await register();
    upstream.serve(URL, { tools: TOOLS, callError: new UpstreamReplyError(-32000, 'bad token upstream-1 in Bearer upstream-1') });
    const outcome = await call(SUBJECT);
    expect(outcome).toEqual({ kind: 'error', message: expect.stringMatching(/answered with an error: bad token \*+/) });
    const seen = `${JSON.stringify(outcome)}\n${logged.join('\n')}`;
    expect(seen).not.toContain('upstream-1');
    expect(seen).not.toContain(SUBJECT);
  });
});
