import { MASK, mcpServerPolicy } from '../../../../../../src/application/use-cases/gateway/external/mcp-server-policy';
import { ResourceRecord } from '../../../../../../src/domain/resource/resource-record';

const policy = mcpServerPolicy(20);
const valid = {
  name: 'files-2',
  url: 'https://files.example.com/mcp',
  headers: { Authorization: 'Bearer x' },
  tool_scopes: { read: ['projects:read'] },
};

describe('mcpServerPolicy', () => {
  it('accepts a valid registration as given', () => {
    expect(policy.check(valid)).toEqual(valid);
  });

  it.each([
    [{ ...valid, name: 'Files' }, /data.name/],
    [{ ...valid, name: 'x'.repeat(33) }, /data.name/],
    [{ ...valid, url: 'file:///etc' }, /data.url/],
    [{ ...valid, headers: { a: 1 } }, /data.headers/],
    [{ ...valid, tool_scopes: { read: 'projects:read' } }, /tool_scopes.read/],
    [{ ...valid, tool_scopes: { read: ['projects:admin'] } }, /tool_scopes.read\[0\]/],
    [{ ...valid, extra: true }, /data.extra/],
  ])('refuses %j', (data, message) => {
    expect(() => policy.check(data)).toThrow(message);
  });

  it.each([
    ['a line feed', 'Bearer tok-SECRET\n'],
    ['a carriage return', 'Bearer tok-SECRET\r\nX-Evil: 1'],
    ['a NUL', 'Bearer tok-SECRET\u0000'],
    ['another control character', 'Bearer tok-SECRET\u0007'],
    ['a space at the end', 'Bearer tok-SECRET '],
    ['a tab at the start', '\tBearer tok-SECRET'],
    ['a character past U+00FF', 'Bearer tok-SECRET\u0100'],
  ])('refuses a header value with %s, naming the header and never quoting the value', (_, value) => {
    const refused = () => policy.check({ ...valid, headers: { 'X-Api-Key': 'fine', Authorization: value } });
    expect(refused).toThrow(/data\.headers\.Authorization: is not an HTTP header value/);
    expect(refused).not.toThrow(/SECRET|X-Api-Key/);
  });

  it.each([
    ['a space', 'X Key'],
    ['a colon', 'X-Key:'],
    ['a line feed', 'X-Key\nHost'],
    ['nothing', ''],
  ])('refuses a header name with %s', (_, name) => {
    expect(() => policy.check({ ...valid, headers: { [name]: 'v' } })).toThrow(/data\.headers: has a name that is not an HTTP header name/);
  });

  it('accepts header values with inner spaces, tabs and obs-text, and an empty value', () => {
    const headers = { Authorization: 'Bearer a b\tc', 'X-Latin': 'caf\u00e9', 'X-Empty': '', "x!#$%&'*+-.^_`|~9": 'v' };
    expect(policy.check({ ...valid, headers })).toEqual({ ...valid, headers });
  });

  it('accepts resource_scopes (URIs and URI templates) and prompt_scopes as tool_scopes', () => {
    const data = {
      ...valid,
      resource_scopes: { 'file:///a.txt': ['chat:read'], 'file:///notes/{name}': ['projects:read', 'chat:read'] },
      prompt_scopes: { greet: ['chat:read'] },
    };
    expect(policy.check(data)).toEqual(data);
  });

  it.each([
    [{ resource_scopes: ['chat:read'] }, /data.resource_scopes: must map resource URIs/],
    [{ resource_scopes: { 'file:///a': 'chat:read' } }, /resource_scopes.file:\/\/\/a: must be an array/],
    [{ resource_scopes: { 'file:///{a': ['chat:read'] } }, /is not a URI template: has a \{ without its \}/],
    [{ resource_scopes: { 'file:///a': ['chat:admin'] } }, /resource_scopes.file:\/\/\/a\[0\]/],
    [{ resource_scopes: { ['x'.repeat(1025)]: ['chat:read'] } }, /keys must be 1 to 1024 characters/],
    [{ resource_scopes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`u${i}`, ['chat:read']])) }, /at most 100 entries/],
    [{ prompt_scopes: { greet: Array.from({ length: 13 }, () => 'chat:read') } }, /prompt_scopes.greet: must have at most 12 scopes/],
    [{ prompt_scopes: { '': ['chat:read'] } }, /keys must be 1 to 1024/],
  ])('refuses the scope map %#', (extra, message) => {
    expect(() => policy.check({ ...valid, ...extra })).toThrow(message);
  });

  it('masks header values and keeps stored secrets when the mask comes back', () => {
    const record = { data: valid } as unknown as ResourceRecord;
    expect(policy.mask(record)).toEqual({ ...valid, headers: { Authorization: MASK } });
    expect(policy.merge(valid, { headers: { Authorization: MASK, 'X-New': 'n' } }).headers).toEqual({
      Authorization: 'Bearer x',
      'X-New': 'n',
    });
    expect(policy.merge(valid, { headers: { constructor: MASK } }).headers).toEqual({});
  });

  it('keeps the headers while the origin stays: another path, the same host written differently', () => {
    expect(policy.merge(valid, { url: 'https://files.example.com/v2/mcp' })).toEqual({ ...valid, url: 'https://files.example.com/v2/mcp' });
    expect(policy.merge(valid, { url: 'https://FILES.example.com:443/mcp' }).headers).toEqual(valid.headers);
  });

  it.each([
    ['another host', 'https://evil.example.net/mcp'],
    ['another scheme', 'http://files.example.com/mcp'],
    ['another port', 'https://files.example.com:8443/mcp'],
  ])('drops the stored headers when the url moves to %s', (_, url) => {
    expect(policy.merge(valid, { url })).toEqual({ name: 'files-2', url, tool_scopes: valid.tool_scopes });
    expect(policy.merge(valid, { url, headers: { Authorization: 'Bearer new' } }).headers).toEqual({ Authorization: 'Bearer new' });
    // The mask read back from get is no value: it must not carry the old secret to the new origin.
    expect(policy.merge(valid, { url, headers: { Authorization: MASK, 'X-Other': 'o' } }).headers).toEqual({ 'X-Other': 'o' });
  });

  it('treats an unreadable stored url as another origin', () => {
    expect(policy.merge({ ...valid, url: 'not a url' }, { url: valid.url }).headers).toBeUndefined();
  });

  it('limits how many servers one user registers', () => {
    expect(mcpServerPolicy(3).limit).toEqual({
      max: 3,
      refusal: expect.stringMatching(/already have 3 MCP servers.*MAX_MCP_SERVERS_PER_USER/),
    });
  });
});
