import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../../../src/adapters/crypto/aes-gcm-secret-box';
import { EncryptedResourceStore } from '../../../../src/adapters/persistence/encrypted-resource.store';
import { RecordSecrets } from '../../../../src/adapters/persistence/record-secrets';
import { topLevel } from '../../../../src/domain/resource/resource-record';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';

const SERVERS = topLevel('mcp_servers');
const server = {
  name: 'files',
  url: 'https://files.example.com/mcp',
  headers: { Authorization: 'Bearer s3cret', 'X-Team': 'team-one-value' },
};

function makeSut(key = randomBytes(32)) {
  const inner = new InMemoryResourceStore();
  const sut = new EncryptedResourceStore(inner, new RecordSecrets(new AesGcmSecretBox(key)));
  return { inner, sut, key };
}

describe('EncryptedResourceStore', () => {
  it('hands the inner store encrypted header values and its callers plaintext', async () => {
    const { inner, sut } = makeSut();
    const created = await sut.create('alice', SERVERS, server);
    expect(created.data).toEqual(server);
    const stored = inner.records[0].data as typeof server;
    expect(JSON.stringify(inner.records)).not.toMatch(/s3cret|team-one-value/);
    expect(Object.keys(stored.headers)).toEqual(['Authorization', 'X-Team']);
    expect(stored.headers.Authorization).toMatch(/^v2:[0-9a-f]{8}:/);
    expect(stored).toMatchObject({ name: 'files', url: server.url });
    expect((await sut.find('alice', SERVERS, created.id))!.data).toEqual(server);
    expect((await sut.list('alice', SERVERS)).map((r) => r.data)).toEqual([server]);
  });

  it('encrypts updates and creates within a limit too', async () => {
    const { inner, sut } = makeSut();
    const created = (await sut.createWithinLimit('alice', SERVERS, server, 1))!;
    expect(created.data).toEqual(server);
    expect(await sut.createWithinLimit('alice', SERVERS, { name: 'two' }, 1)).toBeNull();
    const updated = await sut.update('alice', SERVERS, created.id, { ...server, headers: { Authorization: 'Bearer n3w' } });
    expect(updated!.data.headers).toEqual({ Authorization: 'Bearer n3w' });
    expect(JSON.stringify(inner.records)).not.toMatch(/s3cret|n3w/);
  });

  it('leaves other resources and items under a server as they are', async () => {
    const { inner, sut } = makeSut();
    await sut.create('alice', topLevel('agents'), { headers: { a: 'plain' } });
    const parent = await sut.create('alice', SERVERS, { name: 'p' });
    await sut.create('alice', { resource: 'mcp_servers', parentId: parent.id, subresource: 'notes' }, { headers: { b: 'plain' } });
    expect(inner.records.map((r) => r.data.headers)).toEqual([{ a: 'plain' }, undefined, { b: 'plain' }]);
  });

  it('reads values stored in plaintext before encryption existed', async () => {
    const { inner, sut } = makeSut();
    const legacy = await inner.create('alice', SERVERS, server);
    expect((await sut.find('alice', SERVERS, legacy.id))!.data).toEqual(server);
  });

  it("marks a record unreadable when its values came from another owner or another of its owner's records, or are under an unknown key", async () => {
    const inner = new InMemoryResourceStore();
    const told: string[] = [];
    const sut = new EncryptedResourceStore(inner, new RecordSecrets(new AesGcmSecretBox(randomBytes(32))), (record, reason) =>
      told.push(`${record.id} ${reason}`),
    );
    const original = await sut.create('alice', SERVERS, server);
    const mallorys = await inner.create('mallory', SERVERS, inner.records[0].data);
    const moved = await inner.create('alice', SERVERS, { ...inner.records[0].data, name: 'moved' });
    const unreadable = { unreadableSecrets: true, data: { name: 'files', url: server.url } };
    expect(await sut.find('mallory', SERVERS, mallorys.id)).toMatchObject(unreadable);
    expect(await sut.list('alice', SERVERS)).toEqual([
      expect.objectContaining({ id: original.id, data: server }),
      expect.objectContaining({ id: moved.id, unreadableSecrets: true, data: { name: 'moved', url: server.url } }),
    ]);
    expect(told.map((line) => line.split(' ')[0])).toEqual([mallorys.id, moved.id]);
    expect(told.join('\n')).toMatch(/failed authentication/);
    expect(told.join('\n')).not.toMatch(/s3cret|team-one-value/);
    const other = new EncryptedResourceStore(inner, new RecordSecrets(new AesGcmSecretBox(randomBytes(32))));
    expect((await other.find('alice', SERVERS, original.id))!.unreadableSecrets).toBe(true);
  });

  it('leaves out only the client secret of an unreadable record, so its auth type stays what it was', async () => {
    const { inner, sut } = makeSut();
    const auth = { type: 'oauth', client_id: 'kg', client_secret: 'cs-s3cret' };
    await sut.create('alice', SERVERS, { ...server, auth });
    const moved = await inner.create('alice', SERVERS, { ...inner.records[0].data, name: 'moved' });
    expect(JSON.stringify(inner.records)).not.toContain('cs-s3cret');
    const found = (await sut.find('alice', SERVERS, moved.id))!;
    expect(found.unreadableSecrets).toBe(true);
    expect(found.data).toEqual({ name: 'moved', url: server.url, auth: { type: 'oauth', client_id: 'kg' } });
  });
});
