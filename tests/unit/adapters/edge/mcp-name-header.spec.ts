import { decodeMcpName, nameSourceOf } from '../../../../src/adapters/edge/mcp-name-header';

describe('decodeMcpName', () => {
  it('returns a plain value as it is, trimmed of spaces and tabs', () => {
    expect(decodeMcpName('echo')).toBe('echo');
    expect(decodeMcpName(' \techo\t ')).toBe('echo');
    // The sentinel is case-sensitive, as header values are: this is a plain value.
    expect(decodeMcpName('=?BASE64?ZWNobw==?=')).toBe('=?BASE64?ZWNobw==?=');
  });

  it('decodes the =?base64?…?= form as UTF-8', () => {
    expect(decodeMcpName(`=?base64?${Buffer.from('café ☕').toString('base64')}?=`)).toBe('café ☕');
    expect(decodeMcpName('=?base64??=')).toBe('');
  });

  it('refuses a payload that is not canonical base64 or not UTF-8', () => {
    for (const payload of ['ZWNobw', 'ZWNobw=', 'ZW Nobw==', 'ZWNobw==\n', '!!!!', '/w=='])
      expect(decodeMcpName(`=?base64?${payload}?=`)).toBeUndefined();
  });
});

describe('nameSourceOf', () => {
  it('names the body field Mcp-Name mirrors, for the three methods that require it', () => {
    expect(['tools/call', 'prompts/get', 'resources/read', 'tools/list', 'constructor'].map(nameSourceOf)).toEqual([
      'name',
      'name',
      'uri',
      undefined,
      undefined,
    ]);
  });
});
