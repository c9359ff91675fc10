import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import { JwksAccessTokenVerifier } from '../../../../src/adapters/auth/jwks-access-token-verifier';
import { JwksKeySet } from '../../../../src/adapters/auth/jwks-key-set';
import { jwksLoader } from '../../../../src/adapters/auth/jwks-loader';
import { TEST_AUDIENCE, TEST_ISSUER, TestIdentityProvider } from '../../../support/test-identity-provider';

let idp: TestIdentityProvider;
beforeEach(async () => {
  idp = await new TestIdentityProvider().start();
});
afterEach(() => idp.stop());

/** The verifier as the service builds it, on a JWKS served over HTTP, with a clock the test moves. */
function makeSut() {
  let now = 1_000_000;
  const failures: string[] = [];
  let failed: () => void = () => undefined;
  const keys = new JwksKeySet({
    load: jwksLoader(idp.jwksUri, { timeoutMs: 300, maxBytes: 16 * 1024, maxKeys: 10 }),
    refetchIntervalMs: 10_000,
    maxAgeMs: 600_000,
    now: () => now,
    warn: (message, error) => {
      failures.push(`${message}: ${(error as Error).message}`);
      failed();
    },
  });
  const verifier = new JwksAccessTokenVerifier(
    { issuer: TEST_ISSUER, audience: TEST_AUDIENCE, adminRole: 'admin', maxLifetimeSeconds: 86_400 },
    keys,
  );
  return {
    verify: (token: string) => verifier.verify(token),
    async expectVerified(tokens: string[]) {
      for (const token of tokens) expect(await verifier.verify(token)).toMatchObject({ isAdmin: false });
    },
    advance: (ms: number) => {
      now += ms;
    },
    failures,
    /** Resolves at the next failed fetch. */
    nextFailure: () =>
      new Promise<void>((resolve) => {
        failed = resolve;
      }),
  };
}

const known = () => [idp.token({ sub: randomUUID(), alg: 'RS256' }), idp.token({ sub: randomUUID(), alg: 'ES256' })];
const bogus = (i: number) => idp.token({ sub: randomUUID(), header: { kid: `made-up-${i}` } });

describe('the JWKS key set over HTTP', () => {
  it('keeps verifying known keys while made-up kids flood in, and takes a new provider key once a fetch is allowed', async () => {
    const sut = makeSut();
    await sut.expectVerified(known());
    for (let round = 0; round < 3; round += 1) {
      const refusals = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => sut.verify(bogus(i))));
      expect(refusals.every((r) => r.status === 'rejected' && r.reason.message === 'token signing key not found')).toBe(true);
      await sut.expectVerified(known());
      sut.advance(10_000);
    }
    expect(idp.jwksRequests).toBeLessThanOrEqual(3);

    await Promise.allSettled(Array.from({ length: 100 }, (_, i) => sut.verify(bogus(i)))); // spends this interval's fetch
    const kid = idp.rotate();
    const rotated = idp.token({ sub: randomUUID(), kid });
    await expect(sut.verify(rotated)).rejects.toThrow('token signing key not found');
    await sut.expectVerified(known());
    sut.advance(10_000);
    await sut.expectVerified([rotated, ...known()]);
  });

  it.each([
    ['larger than the byte cap', (res: ServerResponse, jwks: string) => res.end(`${jwks.slice(0, -1)},"padding":"${'x'.repeat(20_000)}"}`)],
    [
      'drip-fed past the deadline',
      (res: ServerResponse, jwks: string) => {
        res.write(jwks.slice(0, 10));
        let sent = 10;
        const timer = setInterval(() => (sent < jwks.length ? res.write(jwks[sent++]) : res.end()), 50);
        res.on('close', () => clearInterval(timer));
      },
    ],
  ])('refuses a JWKS %s, logs it, and keeps verifying with the last good keys', async (_case, answer) => {
    const sut = makeSut();
    await sut.expectVerified(known());
    const kid = idp.rotate();
    idp.answer = answer;
    sut.advance(10_000);
    const failure = sut.nextFailure();
    const rotated = idp.token({ sub: randomUUID(), kid });
    const refused = sut.verify(rotated);
    await sut.expectVerified(known()); // not held behind the fetch under way
    await expect(refused).rejects.toThrow('token signing key not found');
    await failure;
    expect(sut.failures).toHaveLength(1);
    expect(sut.failures[0]).toMatch(/^fetching the JWKS failed; keeping the keys held: /);
    for (const part of rotated.split('.')) expect(sut.failures[0]).not.toContain(part);
    await sut.expectVerified(known());
  });

  it('keeps the last good keys when the provider answers an error', async () => {
    const sut = makeSut();
    await sut.expectVerified(known());
    idp.answer = (res) => res.writeHead(500).end();
    sut.advance(600_000);
    await sut.expectVerified(known()); // starts a background refresh, which fails
    await expect(sut.verify(bogus(1))).rejects.toThrow('token signing key not found');
    await sut.expectVerified(known());
    expect(sut.failures.join()).toContain('HTTP 500');
  });
});
