import { pkcePair, randomState, s256Challenge } from '../../../../src/adapters/oauth-client/pkce';

describe('PKCE', () => {
  it('computes the S256 challenge of RFC 7636 appendix B', () => {
    expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes a fresh 43-character verifier of the unreserved alphabet, and its challenge', () => {
    const a = pkcePair();
    const b = pkcePair();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.challenge).toBe(s256Challenge(a.verifier));
    expect(a.verifier).not.toBe(b.verifier);
  });

  it('makes a fresh state each time', () => {
    expect(randomState()).not.toBe(randomState());
    expect(randomState().length).toBeGreaterThanOrEqual(32);
  });
});
