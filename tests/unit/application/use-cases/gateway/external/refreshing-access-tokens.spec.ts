import { OAuthGrant } from '../../../../../../src/application/ports/mcp-connection-store.port';
import {
  RefreshInput,
  UpstreamAuthorization,
  UpstreamAuthorizationError,
  UpstreamTokenSet,
} from '../../../../../../src/application/ports/upstream-authorization.port';
import { RefreshingAccessTokens } from '../../../../../../src/application/use-cases/gateway/external/refreshing-access-tokens';
import { SERVERS } from '../../../../../../src/application/use-cases/gateway/external/upstream-servers';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpConnectionStore } from '../../../../../fakes/in-memory-mcp-connection.store';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { InMemoryUnitOfWork } from '../../../../../fakes/in-memory-unit-of-work';

const ALICE = 'alice';
const MINUTE = 60_000;

/** The authorization server's token endpoint, as the refresher sees it: each refresh rotates both tokens. */
class FakeAuthorization {
  readonly refreshes: RefreshInput[] = [];
  refused = false;
  unreachable = false;
  private issued = 0;
  constructor(private readonly clock: FixedClock) {}
  async refresh(input: RefreshInput): Promise<UpstreamTokenSet> {
    this.refreshes.push(input);
    await Promise.resolve();
    if (this.refused) throw new UpstreamAuthorizationError('grant_refused', 'the token endpoint refused the grant', 'invalid_grant');
    if (this.unreachable) throw new UpstreamAuthorizationError('unreachable', 'no answer');
    this.issued += 1;
    return {
      accessToken: `at-${this.issued}`,
      refreshToken: `rt-${this.issued}`,
      expiresAt: new Date(this.clock.now().getTime() + 10 * MINUTE),
      scopes: ['mcp:tools'],
      tokenType: 'Bearer',
    };
  }
}

async function makeSut() {
  const clock = new FixedClock();
  const records = new InMemoryResourceStore();
  const connections = new InMemoryMcpConnectionStore(() => clock.now());
  const work = new InMemoryUnitOfWork({ records, connections });
  const authorization = new FakeAuthorization(clock);
  const sleeps: number[] = [];
  const options = { marginMs: MINUTE, claimSeconds: 30, waitMs: 1000, pollMs: 100, sleep: async (ms: number) => void sleeps.push(ms) };
  const sut = new RefreshingAccessTokens(connections, authorization as unknown as UpstreamAuthorization, work, clock, options);
  const server = await records.create(ALICE, SERVERS, { name: 'linear', url: 'https://linear.example/mcp', auth: { type: 'oauth' } });
  const grant = (expiresInMs: number): OAuthGrant => ({
    tokens: {
      accessToken: 'at-0',
      refreshToken: 'rt-0',
      expiresAt: new Date(clock.now().getTime() + expiresInMs),
      scopes: ['mcp:tools'],
      tokenType: 'Bearer',
    },
    client: { issuer: 'https://as.example', clientId: 'c', tokenEndpointAuth: 'none', source: 'dynamic' },
    authorizationServer: {
      issuer: 'https://as.example',
      authorizationEndpoint: 'https://as.example/auth',
      tokenEndpoint: 'https://as.example/token',
      clientIdMetadataDocumentSupported: false,
      issParameterSupported: false,
    },
    resource: 'https://linear.example/mcp',
  });
  /** A ten-minute token saved, then the clock moved to 30 s before its expiry. */
  const nearExpiry = async () => {
    const saved = await connections.saveGrant(ALICE, server.id, grant(10 * MINUTE));
    clock.advance(10 * MINUTE - 30_000);
    return saved;
  };
  return { sut, clock, connections, work, authorization, server, grant, sleeps, nearExpiry };
}

describe('RefreshingAccessTokens', () => {
  it('sends a token far from its expiry as it is', async () => {
    const { sut, connections, authorization, server, grant } = await makeSut();
    await connections.saveGrant(ALICE, server.id, grant(10 * MINUTE));
    expect((await sut.open(ALICE, server))?.token).toBe('at-0');
    expect(authorization.refreshes).toEqual([]);
  });

  it('refreshes a token within a minute of expiry once for concurrent calls, keeping the rotated refresh token', async () => {
    const { sut, connections, authorization, server, work, nearExpiry } = await makeSut();
    await nearExpiry();
    const tokens = await Promise.all([1, 2, 3, 4].map(() => sut.open(ALICE, server)));
    expect(tokens.map((t) => t?.token)).toEqual(['at-1', 'at-1', 'at-1', 'at-1']);
    expect(authorization.refreshes).toHaveLength(1);
    expect(authorization.refreshes[0]).toMatchObject({ refreshToken: 'rt-0', resource: 'https://linear.example/mcp' });
    expect((await connections.openGrant(ALICE, server.id))?.grant.tokens).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
    expect(work.audit.records.map((r) => r.action)).toEqual(['mcp_connection.refreshed']);
    expect(JSON.stringify(work.audit.records)).not.toMatch(/at-|rt-/);
  });

  it('refreshes a token issued for less than two minutes only once half its lifetime is left, not on every call', async () => {
    const { sut, connections, authorization, server, grant, clock } = await makeSut();
    await connections.saveGrant(ALICE, server.id, grant(40_000));
    expect((await sut.open(ALICE, server))?.token).toBe('at-0');
    clock.advance(19_000);
    expect((await sut.open(ALICE, server))?.token).toBe('at-0');
    expect(authorization.refreshes).toEqual([]);
    clock.advance(2_000);
    expect((await sut.open(ALICE, server))?.token).toBe('at-1');
    expect(authorization.refreshes).toHaveLength(1);
  });

  it('records mcp_connection.refreshed at most once an hour per connection', async () => {
    const { sut, clock, server, work, nearExpiry } = await makeSut();
    await nearExpiry();
    await sut.open(ALICE, server);
    for (const step of [10, 20, 35]) {
      clock.advance(step * MINUTE);
      await sut.open(ALICE, server);
    }
    // Refreshed at 0, 10, 30 and 65 minutes: audited at 0 and 65.
    expect(work.audit.records.map((r) => r.action)).toEqual(['mcp_connection.refreshed', 'mcp_connection.refreshed']);
  });

  it('a refused refresh marks the connection failed, records mcp_connection.failed, and answers as without a connection', async () => {
    const { sut, connections, authorization, server, work, nearExpiry } = await makeSut();
    await nearExpiry();
    authorization.refused = true;
    expect(await sut.open(ALICE, server)).toBeNull();
    expect((await connections.find(ALICE, server.id))?.state).toBe('failed');
    expect(work.audit.records.map((r) => r.action)).toEqual(['mcp_connection.failed']);
    expect(await sut.open(ALICE, server)).toBeNull();
    expect(authorization.refreshes).toHaveLength(1);
  });

  it('an unreachable authorization server leaves the connection as it was, and the next call tries again', async () => {
    const { sut, authorization, server, nearExpiry } = await makeSut();
    await nearExpiry();
    authorization.unreachable = true;
    expect((await sut.open(ALICE, server))?.token).toBe('at-0');
    authorization.unreachable = false;
    expect((await sut.open(ALICE, server))?.token).toBe('at-1');
  });

  it("while another replica holds the refresh, waits for its token instead of refreshing, within the call's deadline", async () => {
    const { sut, connections, authorization, server, grant, sleeps, nearExpiry } = await makeSut();
    const { connection } = await nearExpiry();
    expect(await connections.claimRefresh(connection.id, 30)).toBe(true);
    // The other replica stores its new token during the second wait.
    let waits = 0;
    const other = { ...grant(10 * MINUTE), tokens: { ...grant(10 * MINUTE).tokens, accessToken: 'at-other', refreshToken: 'rt-other' } };
    jest.spyOn(connections, 'openGrant').mockImplementation(async function (this: InMemoryMcpConnectionStore, userId, serverId) {
      if (sleeps.length === 2 && waits++ === 0) await connections.saveRefreshed(connection.id, userId, serverId, other);
      return InMemoryMcpConnectionStore.prototype.openGrant.call(connections, userId, serverId);
    });
    expect((await sut.open(ALICE, server))?.token).toBe('at-other');
    expect(authorization.refreshes).toEqual([]);
    expect(sleeps).toEqual([100, 100]);
  });

  it("takes the token another replica stored between this call's read and its claim, and refreshes nothing", async () => {
    const { sut, connections, authorization, server, grant, nearExpiry } = await makeSut();
    const { connection } = await nearExpiry();
    const other = { ...grant(10 * MINUTE), tokens: { ...grant(10 * MINUTE).tokens, accessToken: 'at-other', refreshToken: 'rt-other' } };
    // The other replica's refresh ends (its save lifts its claim) just before this call claims: the claim takes.
    const claim = connections.claimRefresh.bind(connections);
    jest.spyOn(connections, 'claimRefresh').mockImplementationOnce(async (id, seconds) => {
      await connections.saveRefreshed(connection.id, ALICE, server.id, other);
      return claim(id, seconds);
    });
    expect((await sut.open(ALICE, server))?.token).toBe('at-other');
    // Sending rt-0 again would be a used refresh token: the authorization server would refuse the grant.
    expect(authorization.refreshes).toEqual([]);
    // Its claim is lifted: the next refresh is not held up for 30 s.
    expect(await connections.claimRefresh(connection.id, 30)).toBe(true);
  });

  it('gives up waiting at the deadline and sends the token it has', async () => {
    const { sut, clock, connections, authorization, server, nearExpiry } = await makeSut();
    const { connection } = await nearExpiry();
    await connections.claimRefresh(connection.id, 30);
    const slept: number[] = [];
    (sut as unknown as { options: { sleep: (ms: number) => Promise<void> } }).options.sleep = async (ms) => {
      slept.push(ms);
      clock.advance(ms);
    };
    expect((await sut.open(ALICE, server))?.token).toBe('at-0');
    expect(slept).toHaveLength(10);
    expect(authorization.refreshes).toEqual([]);
  });
});
