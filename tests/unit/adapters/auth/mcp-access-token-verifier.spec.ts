import { AccessTokenRefusedError } from '../../../../src/adapters/auth/access-token-refused.error';
import { ExpectedClaims } from '../../../../src/adapters/auth/jwks-access-token-verifier';
import { MAX_ACCESS_TOKEN_CHARS, McpAccessTokenVerifier, subjectId } from '../../../../src/adapters/auth/mcp-access-token-verifier';

const SUB = '6F1C2D3E-4B5A-4C6D-8E7F-9A0B1C2D3E4F';
const ISS = 'https://idp.example/';
const RESOURCE = 'https://kg.example/mcp';

/** A claims verifier that returns what it is given and remembers what it was asked to expect. */
function makeSut(claims: Record<string, unknown>) {
  const asked: ExpectedClaims[] = [];
  const spy = {
    verifyClaims: async (_token: string, expected: ExpectedClaims) => {
      asked.push(expected);
      return { sub: SUB, iss: ISS, exp: 2_000_000_000, ...claims } as never;
    },
  };
  return { sut: new McpAccessTokenVerifier(spy, { resourceUrl: RESOURCE, authorizationServers: [ISS, 'https://other.example/'] }), asked };
}

describe('McpAccessTokenVerifier', () => {
  it('expects the resource as audience and any listed issuer', async () => {
    const { sut, asked } = makeSut({});
    await sut.verify('a.b.c');
    expect(asked).toEqual([{ issuer: [ISS, 'https://other.example/'], audience: RESOURCE }]);
  });

  it('on a server endpoint inside /mcp, expects either /mcp or that endpoint as audience', async () => {
    const { sut, asked } = makeSut({});
    await sut.verify('a.b.c', `${RESOURCE}/servers/files`);
    await sut.verify('a.b.c');
    expect(asked).toEqual([
      { issuer: [ISS, 'https://other.example/'], audience: [RESOURCE, `${RESOURCE}/servers/files`] },
      { issuer: [ISS, 'https://other.example/'], audience: RESOURCE },
    ]);
  });

  it('gives the subject, its own id as owner and budget, no limits, the expiry and the token (the subject token of an exchange)', async () => {
    const { sut } = makeSut({ scope: 'projects:read' });
    const principal = await sut.verify('a.b.c');
    expect(principal).toMatchObject({
      userId: SUB.toLowerCase(),
      keyId: subjectId(ISS, SUB.toLowerCase()),
      budgetId: subjectId(ISS, SUB.toLowerCase()),
      rateLimit: null,
      hasQuota: false,
      accessToken: { expiresAt: new Date(2_000_000_000_000), token: 'a.b.c' },
    });
  });

  it.each([
    ['a scope string', { scope: 'openid projects:write  chat:read agents:admin' }, ['chat:read', 'projects:read', 'projects:write']],
    ['an scp array', { scp: ['models:read', 'email', 7, null] }, ['models:read']],
    ['scope winning over scp', { scope: 'agents:read', scp: ['models:read'] }, ['agents:read']],
  ])('takes exactly the keygate scopes of %s', async (_case, claims, allowed) => {
    const { sut } = makeSut(claims);
    const { scopes } = await sut.verify('a.b.c');
    const all = ['agents', 'projects', 'routines', 'mcp_servers', 'chat', 'models'].flatMap((r) => [`${r}:read`, `${r}:write`]);
    expect(all.filter((s) => scopes.allows(s)).sort()).toEqual(allowed);
    expect(scopes.isFullAccess).toBe(false);
  });

  it.each([
    ['no scope claim', {}],
    ['an empty scope', { scope: '' }],
    ['only foreign scopes', { scope: 'openid email' }],
    ['a scope that is not a string', { scope: ['projects:read'] }],
  ])('grants nothing, never full access, for %s', async (_case, claims) => {
    const { sut } = makeSut(claims);
    const { scopes } = await sut.verify('a.b.c');
    expect(scopes.isFullAccess).toBe(false);
    expect(scopes.grantsNothing).toBe(true);
  });

  it('shares one scope set between tokens granting the same scopes', async () => {
    const one = await makeSut({ scope: 'chat:read projects:read' }).sut.verify('a.b.c');
    const { sut } = makeSut({ scope: 'projects:read chat:read' });
    expect((await sut.verify('a.b.c')).scopes).toBe((await sut.verify('a.b.c')).scopes);
    expect(one.scopes.allows('chat:read')).toBe(true);
  });

  it('refuses a token over the size bound without verifying it', async () => {
    const { sut, asked } = makeSut({});
    await expect(sut.verify('x'.repeat(MAX_ACCESS_TOKEN_CHARS + 1))).rejects.toThrow(AccessTokenRefusedError);
    expect(asked).toHaveLength(0);
  });
});

describe('subjectId', () => {
  it('is a version-8 UUID, stable, and differs by issuer and by subject', () => {
    const id = subjectId(ISS, 'a');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(subjectId(ISS, 'a')).toBe(id);
    expect(subjectId('https://other.example/', 'a')).not.toBe(id);
    expect(subjectId(ISS, 'b')).not.toBe(id);
  });
});
