import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { RecordSecrets } from '../../../../src/adapters/persistence/record-secrets';
import { topLevel } from '../../../../src/domain/resource/resource-record';

const SERVERS = topLevel('mcp_servers');
const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
const [one, two] = [
  { ownerId: 'alice', id: 'record-one' },
  { ownerId: 'alice', id: 'record-two' },
];
const data = { name: 'files', headers: { Authorization: 'Bearer s3cret' } };

/** A value as the previous release wrote it: v1, bound to owner, resource, field and name only. */
function ownerBound(box: AesGcmSecretBox, value: string): string {
  return box.encrypt(value, JSON.stringify(['alice', 'mcp_servers', 'headers', 'Authorization'])).replace(/^v2:/, 'v1:');
}
const headerOf = (sealed: Record<string, unknown>) => (sealed.headers as Record<string, string>).Authorization;

describe('RecordSecrets', () => {
  it('binds a value to its record: moved to another record of the same owner, it no longer opens', () => {
    const secrets = new RecordSecrets(new AesGcmSecretBox(newKey));
    const sealed = secrets.seal(one, SERVERS, data);
    expect(secrets.open(one, SERVERS, sealed)).toEqual(data);
    expect(() => secrets.open(two, SERVERS, sealed)).toThrow(/failed authentication/);
  });

  it('opens values bound the older way, and the start-up upgrade binds them to their record under the key they are under', () => {
    const box = new AesGcmSecretBox(newKey, [oldKey]);
    const secrets = new RecordSecrets(box);
    const stored = { ...data, headers: { Authorization: ownerBound(new AesGcmSecretBox(oldKey), 'Bearer s3cret') } };
    expect(secrets.open(one, SERVERS, stored)).toEqual(data);
    const upgraded = secrets.reseal(one, SERVERS, stored, 'upgrade');
    expect(headerOf(upgraded)).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(oldKey).keyId}:`));
    expect(new RecordSecrets(new AesGcmSecretBox(oldKey)).open(one, SERVERS, upgraded)).toEqual(data);
    expect(() => secrets.open(two, SERVERS, upgraded)).toThrow(/failed authentication/);
    expect(secrets.reseal(one, SERVERS, upgraded, 'upgrade')).toBe(upgraded);
  });

  it('rotation moves every value, older bindings included, to the current key and format', () => {
    const secrets = new RecordSecrets(new AesGcmSecretBox(newKey, [oldKey]));
    const stored = { ...data, headers: { Authorization: ownerBound(new AesGcmSecretBox(newKey), 'Bearer s3cret') } };
    const rotated = secrets.reseal(one, SERVERS, stored, 'all');
    expect(headerOf(rotated)).toMatch(new RegExp(`^v2:${new AesGcmSecretBox(newKey).keyId}:`));
    expect(secrets.open(one, SERVERS, rotated)).toEqual(data);
    expect(secrets.reseal(one, SERVERS, rotated, 'all')).toBe(rotated);
  });

  it('seals the client secret of auth, bound to its record, and leaves the other auth fields readable', () => {
    const secrets = new RecordSecrets(new AesGcmSecretBox(newKey));
    const auth = {
      type: 'token_exchange',
      token_endpoint: 'https://as.example.com/t',
      audience: 'a',
      client_id: 'kg',
      client_secret: 'cs-s3cret',
    };
    const sealed = secrets.seal(one, SERVERS, { ...data, auth });
    const stored = sealed.auth as Record<string, string>;
    expect(stored).toEqual({ ...auth, client_secret: expect.stringMatching(/^v2:/) });
    expect(JSON.stringify(sealed)).not.toContain('cs-s3cret');
    expect(secrets.open(one, SERVERS, sealed)).toEqual({ ...data, auth });
    expect(() => secrets.open(two, SERVERS, sealed)).toThrow(/failed authentication/);
  });
});
