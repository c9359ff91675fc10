import { createHash } from 'node:crypto';
import { isPkceValue, pkceMatches } from '../../../../src/adapters/auth/pkce';

const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
// RFC 7636 appendix B
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256', () => {
  it('accepts the RFC 7636 example and nothing else', () => {
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(challenge);
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(`${verifier.slice(0, -1)}l`, challenge)).toBe(false);
    expect(pkceMatches(verifier, `${challenge.slice(0, -1)}d`)).toBe(false);
    expect(pkceMatches(verifier, '')).toBe(false);
  });

  it('refuses verifiers outside 43..128 unreserved characters', () => {
    expect(isPkceValue('a'.repeat(42))).toBe(false);
    expect(isPkceValue('a'.repeat(43))).toBe(true);
    expect(isPkceValue('a'.repeat(128))).toBe(true);
    expect(isPkceValue('a'.repeat(129))).toBe(false);
    expect(isPkceValue(`${'a'.repeat(42)}+`)).toBe(false);
    expect(isPkceValue(42)).toBe(false);
    expect(pkceMatches('short', challenge)).toBe(false);
  });
});
