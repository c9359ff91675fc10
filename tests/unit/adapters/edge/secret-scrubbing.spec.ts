import { scrubPath, scrubSecrets } from '../../../../src/adapters/edge/secret-scrubbing';

const SECRET = 'ab'.repeat(32);
const RAW_KEY = `svc_${SECRET}`;
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
const UUID_PATH = '/api/v1/api-keys/1b4e28ba-2fa1-11d2-883f-0016d3cca427';

/** Every character as %XX, in the given hex case. */
const encodeAll = (text: string, upper = true) =>
  [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');

describe('scrubSecrets', () => {
  it('masks keys and JWTs and leaves the rest', () => {
    expect(scrubSecrets(`/api/v1/api-keys/${RAW_KEY}`)).toBe('/api/v1/api-keys/svc_[redacted]');
    expect(scrubSecrets(`/x/${JWT}/y`)).toBe('/x/[redacted-jwt]/y');
    expect(scrubSecrets(UUID_PATH)).toBe(UUID_PATH);
  });

  it('masks a run of 64 hex digits or more without svc_, in any case, wherever it stands', () => {
    expect(scrubSecrets(`/api/v1/api-keys/${SECRET}`)).toBe('/api/v1/api-keys/[redacted-hex]');
    expect(scrubSecrets(`/k/${SECRET.toUpperCase()}/x`)).toBe('/k/[redacted-hex]/x');
    expect(scrubSecrets(`/k?x=${SECRET}f&y=1`)).toBe('/k?x=[redacted-hex]&y=1');
    expect(scrubSecrets(`/k/x${SECRET}`)).not.toContain(SECRET);
  });

  it('leaves hex runs shorter than a key secret', () => {
    const short = `/k/${SECRET.slice(0, 63)}/${'f'.repeat(32)}`;
    expect(scrubSecrets(short)).toBe(short);
  });
});

describe('scrubPath', () => {
  it('masks keys and JWTs written plainly, as scrubSecrets does', () => {
    expect(scrubPath(`/api/v1/api-keys/${RAW_KEY}`)).toBe('/api/v1/api-keys/svc_[redacted]');
    expect(scrubPath(`/x/${JWT}/y`)).toBe('/x/[redacted-jwt]/y');
  });

  it.each([
    ['one encoded letter', `/api/v1/api-keys/%73vc_${SECRET}`],
    ['lower-case escapes', `/k/${encodeAll(RAW_KEY, false)}`],
    ['upper-case escapes', `/k/${encodeAll(RAW_KEY, true)}`],
    ['escapes of mixed case', `/k/%53%56c%5f${SECRET}`],
    ['double encoding', `/api/v1/api-keys/%2573vc_${SECRET}`],
    ['double encoding in upper case', `/api/v1/api-keys/%2573VC%255F${SECRET}`],
    ['triple encoding', `/api/v1/api-keys/%252573vc_${SECRET}`],
    ['an encoded secret part', `/k/svc_${encodeAll(SECRET)}`],
    ['a malformed escape beside it', `/k/%zz/%73vc_${SECRET}/%4`],
  ])('masks a key written with %s', (_case, path) => {
    const logged = scrubPath(path);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain(SECRET.toUpperCase());
    expect(logged.toLowerCase()).toContain('svc_[redacted]');
  });

  it.each([
    ['plainly', `/api/v1/api-keys/${SECRET}`],
    ['with one digit encoded', `/api/v1/api-keys/%61${SECRET.slice(1)}`],
    ['wholly encoded', `/k/${encodeAll(SECRET)}`],
    ['double encoded', `/k/%2561${SECRET.slice(1)}`],
  ])('masks a key secret without svc_ written %s', (_case, path) => {
    const logged = scrubPath(path);
    expect(logged).not.toMatch(/[0-9a-f]{64}/i);
    expect(logged).toContain('[redacted-hex]');
  });

  it('masks a percent-encoded JWT, whole or in part', () => {
    for (const path of [
      `/x/${encodeAll(JWT)}`,
      `/x/%65yJ${JWT.slice(3)}`,
      `/x/${JWT.replace(/\./g, '%2E')}`,
      `/x/${JWT.replace(/\./g, '%252e')}`,
    ]) {
      const logged = scrubPath(path);
      for (const part of JWT.split('.')) expect(logged).not.toContain(part);
      expect(logged).toContain('[redacted-jwt]');
    }
  });

  it('leaves a path without secrets as it came, escapes included', () => {
    for (const path of ['/mcp', UUID_PATH, '/api/v1/tool-sets/a%20b', '/x/%E2%82%AC', '/x/%2573', '/x/%25'])
      expect(scrubPath(path)).toBe(path);
  });

  it('never throws on malformed escapes or bytes that are not UTF-8', () => {
    for (const path of ['/%', '/%4', '/%zz', '/%%%', '/%E0%A4%A', '/%FF%FE', '/%C0%80', `/%ff/%73vc_${SECRET}`]) {
      expect(() => scrubPath(path)).not.toThrow();
      expect(scrubPath(path)).not.toContain(SECRET);
    }
  });

  it('withholds a path encoded so many times that decoding it is not worth the work', () => {
    const deep = `/k/%${'25'.repeat(10)}73vc_${SECRET}`;
    expect(scrubPath(deep)).not.toContain(SECRET);
    expect(scrubPath(deep)).toMatch(/withheld/);
  });
});
