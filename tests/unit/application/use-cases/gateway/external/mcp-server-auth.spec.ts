import { MASK, mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { ResourceRecord } from '../../../../../../src/domain/resource/resource-record';

const policy = mcpServerPolicy(20);
const production = mcpServerPolicy(20, true);
const base = { name: 'files', url: 'https://files.example.com/mcp' };
const exchange = {
  type: 'token_exchange',
  token_endpoint: 'https://as.example.com/token',
  audience: 'files',
  client_id: 'keygate',
  client_secret: 'cs-SECRET',
};

describe('mcpServerPolicy: auth', () => {
  it.each([
    [{ type: 'static' }],
    [{ type: 'oauth' }],
    [{ type: 'oauth', client_id: 'kg', client_secret: 'cs-SECRET', scopes: ['repo', 'read:org'] }],
    [exchange],
    [{ type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' }],
    [{ type: 'user_secret', header: 'X-Api-Key' }],
  ])('accepts %j', (auth) => {
    expect(policy.check({ ...base, auth })).toEqual({ ...base, auth });
  });

  it.each([
    ['no type', {}, /data\.auth: must be an object whose type is one of static, oauth, token_exchange, user_secret/],
    ['an unknown type', { type: 'basic' }, /data\.auth: must be an object whose type/],
    ['not an object', 'oauth', /data\.auth: must be an object/],
    ['a field of another type', { type: 'static', header: 'X' }, /data\.auth\.header: is not a field of static auth/],
    ['token_exchange without its endpoint', { ...exchange, token_endpoint: undefined }, /data\.auth\.token_endpoint: is required/],
    [
      'token_exchange with a file URL',
      { ...exchange, token_endpoint: 'file:///etc/passwd' },
      /data\.auth\.token_endpoint: must be an http or https URL/,
    ],
    ['token_exchange without a client', { ...exchange, client_id: undefined }, /data\.auth\.client_id: is required/],
    ['user_secret without a header', { type: 'user_secret' }, /data\.auth\.header: is required/],
    [
      'user_secret with a header name that is no token',
      { type: 'user_secret', header: 'X Key' },
      /data\.auth\.header: must be an HTTP header name/,
    ],
    ['a prefix with a line break', { type: 'user_secret', header: 'A', prefix: 'Bearer\n' }, /data\.auth\.prefix/],
    ['scopes that are no scope tokens', { type: 'oauth', scopes: ['a b'] }, /data\.auth\.scopes/],
    ['a client secret without a client', { type: 'oauth', client_secret: 's' }, /data\.auth\.client_secret: needs client_id/],
  ])('refuses %s', (_, auth, message) => {
    const data = { ...base, auth: typeof auth === 'object' ? JSON.parse(JSON.stringify(auth)) : auth };
    expect(() => policy.check(data)).toThrow(message);
  });

  it.each([
    ['a line feed', 'cs-SECRET\n'],
    ['a NUL', 'cs-SECRET\u0000'],
    ['a carriage return', 'cs-SECRET\rX'],
    ['nothing', ''],
    ['too much', 'cs-SECRET'.repeat(1000)],
  ])('refuses a client secret with %s, never quoting it', (_, secret) => {
    const refused = () => policy.check({ ...base, auth: { ...exchange, client_secret: secret } });
    expect(refused).toThrow(/data\.auth\.client_secret/);
    expect(refused).not.toThrow(/SECRET/);
  });

  it('wants an https token endpoint in production, as every URL keygate calls there', () => {
    const auth = { ...exchange, token_endpoint: 'http://as.example.com/token' };
    expect(policy.check({ ...base, auth })).toEqual({ ...base, auth });
    expect(() => production.check({ ...base, auth })).toThrow(/data\.auth\.token_endpoint: must be an https URL/);
  });

  it('masks the client secret and keeps the stored one when the mask comes back to the same place', () => {
    const stored = { ...base, auth: exchange };
    expect(policy.mask({ data: stored } as unknown as ResourceRecord)).toEqual({ ...base, auth: { ...exchange, client_secret: MASK } });
    expect(policy.merge(stored, { auth: { ...exchange, client_secret: MASK } }).auth).toEqual(exchange);
    expect(policy.merge(stored, { description: 'x' }).auth).toEqual(exchange);
    expect(policy.merge(stored, { auth: { ...exchange, client_secret: 'new' } }).auth).toEqual({ ...exchange, client_secret: 'new' });
  });

  it('never carries a stored client secret to another token endpoint, another type or, for oauth, another origin', () => {
    const moved = { ...exchange, token_endpoint: 'https://evil.example.net/token', client_secret: MASK };
    expect(policy.merge({ ...base, auth: exchange }, { auth: moved }).auth).toEqual({ ...moved, client_secret: undefined });
    expect(policy.merge({ ...base, auth: exchange }, { auth: { type: 'oauth', client_id: 'kg', client_secret: MASK } }).auth).toEqual({
      type: 'oauth',
      client_id: 'kg',
    });
    const oauth = { type: 'oauth', client_id: 'kg', client_secret: 'cs-SECRET' };
    expect(policy.merge({ ...base, auth: oauth }, { url: 'https://evil.example.net/mcp' }).auth).toEqual({
      type: 'oauth',
      client_id: 'kg',
    });
    expect(policy.merge({ ...base, auth: oauth }, { url: 'https://files.example.com/v2' }).auth).toEqual(oauth);
  });
});
