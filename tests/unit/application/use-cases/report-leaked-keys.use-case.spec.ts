import { createHash, randomBytes } from 'node:crypto';
import { ReportLeakedKeys } from '../../../../src/application/use-cases/report-leaked-keys/report-leaked-keys.use-case';
import { InvalidSignatureError, SigningKeysUnavailableError, ValidationError } from '../../../../src/domain/errors';
import { FakeReportSignatureVerifier } from '../../../fakes/fake-report-signature-verifier';
import { InMemoryUnitOfWork } from '../../../fakes/in-memory-unit-of-work';
import { ActorMother } from '../../../mothers/actor.mother';
import { makeKeyService } from '../../../support/key-service';

const SIGNER = 'scanner-key-1';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const bytes = (body: unknown) => new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
const leak = (token: string, extra: object = {}) => ({
  token,
  type: 'keygate_api_key',
  url: 'https://github.com/o/r/blob/x/.env',
  source: 'content',
  ...extra,
});
const unknownKey = () => `svc_${randomBytes(32).toString('hex')}`;

function makeSut() {
  const service = makeKeyService();
  const signatures = new FakeReportSignatureVerifier([SIGNER]);
  const work = new InMemoryUnitOfWork({ keys: service.repository }, service.audit);
  const report = new ReportLeakedKeys(signatures, work, service.hasher, service.clock);
  const send = (body: unknown, signer = SIGNER) =>
    report.execute({
      payload: bytes(body),
      keyIdentifier: signer,
      signature: FakeReportSignatureVerifier.signatureBy(signer),
      origin: { requestId: 'req-1', ip: '192.0.2.7' },
    });
  const createKey = async (expiresAt: Date | null = null) =>
    service.createKey.execute({ actor: ActorMother.user(), name: 'ci', expiresAt });
  const isRevoked = (id: string) => service.repository.rows.get(id)?.revokedAt !== null;
  const leaked = () => service.audit.records.filter((r) => r.action === 'key.leaked');
  return { ...service, signatures, report, send, createKey, isRevoked, leaked };
}

describe('ReportLeakedKeys', () => {
  it("revokes an active key, answers true_positive with the token's SHA-256, and records key.leaked by the scanner", async () => {
    const { send, createKey, isRevoked, leaked, validateKey, clock } = makeSut();
    const { key, rawKey } = await createKey();
    const verdicts = await send([leak(rawKey)]);
    expect(verdicts).toEqual([{ tokenHash: sha256(rawKey), tokenType: 'keygate_api_key', label: 'true_positive' }]);
    expect(isRevoked(key.id)).toBe(true);
    await expect(validateKey.execute({ rawKey })).rejects.toThrow();
    expect(leaked()).toEqual([
      {
        action: 'key.leaked',
        actor: { type: 'scanner', id: SIGNER },
        userId: key.userId,
        keyId: key.id,
        target: { type: 'api_key', id: key.id },
        occurredAt: clock.now(),
        requestId: 'req-1',
        ip: '192.0.2.7',
        details: { url: 'https://github.com/o/r/blob/x/.env', source: 'content', token_type: 'keygate_api_key' },
      },
    ]);
    expect(JSON.stringify(leaked())).not.toContain(rawKey);
  });

  it('answers in request order: active, already revoked, expired, unknown and wrong-format tokens', async () => {
    const { send, createKey, revokeKey, clock, leaked } = makeSut();
    const active = await createKey();
    const revoked = await createKey();
    await revokeKey.execute({ actor: ActorMother.admin(), id: revoked.key.id });
    const expiring = await createKey(new Date(clock.now().getTime() + 1000));
    clock.advance(2000);
    const unknown = unknownKey();
    const tokens = ['not-a-key', revoked.rawKey, active.rawKey, expiring.rawKey, unknown, active.rawKey.toUpperCase()];
    const verdicts = await send(tokens.map((t) => leak(t)));
    expect(verdicts.map((v) => v.tokenHash)).toEqual(tokens.map(sha256));
    expect(verdicts.map((v) => v.label)).toEqual([
      'false_positive',
      'false_positive',
      'true_positive',
      'false_positive',
      'false_positive',
      'false_positive',
    ]);
    expect(leaked().map((r) => r.keyId)).toEqual([active.key.id]);
  });

  it('answers a token reported twice the same way both times, and revokes and records it once', async () => {
    const { send, createKey, repository, leaked } = makeSut();
    const { rawKey } = await createKey();
    const revoke = jest.spyOn(repository, 'revoke');
    const verdicts = await send([leak(rawKey, { url: 'first' }), leak(unknownKey()), leak(rawKey, { url: 'second' })]);
    expect(verdicts.map((v) => v.label)).toEqual(['true_positive', 'false_positive', 'true_positive']);
    expect(verdicts[0].tokenHash).toBe(verdicts[2].tokenHash);
    expect(revoke).toHaveBeenCalledTimes(1);
    expect(leaked().map((r) => r.details.url)).toEqual(['first']);
  });

  it('looks up no token outside the key format', async () => {
    const { send, repository } = makeSut();
    const findByHash = jest.spyOn(repository, 'findByHash');
    const verdicts = await send([leak('ghp_0123456789'), leak(`svc_${'A'.repeat(64)}`), leak(`svc_${'a'.repeat(63)}`)]);
    expect(verdicts.map((v) => v.label)).toEqual(['false_positive', 'false_positive', 'false_positive']);
    expect(findByHash).not.toHaveBeenCalled();
  });

  it('answers an empty report with no verdicts', async () => {
    expect(await makeSut().send([])).toEqual([]);
  });

  it.each([
    ['no identifier', { keyIdentifier: undefined }],
    ['no signature', { signature: undefined }],
    ['an empty signature', { signature: '' }],
    ['a wrong signature', { signature: 'sig:someone-else' }],
    ['an unlisted identifier', { keyIdentifier: 'scanner-key-9', signature: FakeReportSignatureVerifier.signatureBy('scanner-key-9') }],
  ])('refuses %s with InvalidSignatureError and touches nothing', async (_case, change) => {
    const { report, createKey, isRevoked, audit, repository } = makeSut();
    const { key, rawKey } = await createKey();
    const findByHash = jest.spyOn(repository, 'findByHash');
    const input = {
      payload: bytes([leak(rawKey)]),
      keyIdentifier: SIGNER,
      signature: FakeReportSignatureVerifier.signatureBy(SIGNER),
      ...change,
    };
    await expect(report.execute(input)).rejects.toBeInstanceOf(InvalidSignatureError);
    expect(findByHash).not.toHaveBeenCalled();
    expect(isRevoked(key.id)).toBe(false);
    expect(audit.records.filter((r) => r.action === 'key.leaked')).toEqual([]);
  });

  it('checks the signature before it parses the body: a bad body unsigned is a signature error, not a validation error', async () => {
    const { report } = makeSut();
    await expect(report.execute({ payload: bytes('not json'), keyIdentifier: SIGNER, signature: 'forged' })).rejects.toBeInstanceOf(
      InvalidSignatureError,
    );
  });

  it('says the key list is unavailable, with how long to wait, when no key can be had', async () => {
    const { send, signatures } = makeSut();
    signatures.unavailable = true;
    const error = await send([]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SigningKeysUnavailableError);
    expect((error as SigningKeysUnavailableError).retryAfterSeconds).toBe(30);
  });

  it.each([
    ['a body that is not JSON', () => '[{"token":', 'body'],
    ['an object instead of an array', (raw: string) => leak(raw), 'body'],
    ['more than 1000 reports', (raw: string) => [leak(raw), ...Array.from({ length: 1000 }, () => leak('x'))], 'body'],
    ['an element that is not an object', (raw: string) => [leak(raw), 'x'], '[1]'],
    ['a missing token', (raw: string) => [leak(raw), { type: 't' }], '[1].token'],
    ['a token that is not a string', (raw: string) => [leak(raw), leak(5 as unknown as string)], '[1].token'],
    ['an empty token', (raw: string) => [leak(raw), leak('')], '[1].token'],
    ['a token over 1024 characters', (raw: string) => [leak(raw), leak('s'.repeat(1025))], '[1].token'],
    ['a missing type', (raw: string) => [leak(raw), { token: 'x' }], '[1].type'],
    ['a url that is not a string', (raw: string) => [leak(raw), leak('x', { url: 1 })], '[1].url'],
    ['a url over 2048 characters', (raw: string) => [leak(raw), leak('x', { url: 'u'.repeat(2049) })], '[1].url'],
    ['a source holding NUL', (raw: string) => [leak(raw), leak('x', { source: 'a\u0000b' })], '[1].source'],
  ])('refuses %s with a ValidationError naming it, and revokes nothing', async (_case, bodyFor, field) => {
    const { send, createKey, isRevoked, leaked } = makeSut();
    const { key, rawKey } = await createKey();
    const error = await send(bodyFor(rawKey)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.map((e) => e.field)).toContain(field);
    expect(isRevoked(key.id)).toBe(false);
    expect(leaked()).toEqual([]);
  });

  it('refuses bytes that are not UTF-8 rather than hashing a repaired token', async () => {
    const { report } = makeSut();
    const payload = new Uint8Array([...bytes('[{"token":"svc_'), 0xff, ...bytes('","type":"t"}]')]);
    const error = await report
      .execute({ payload, keyIdentifier: SIGNER, signature: FakeReportSignatureVerifier.signatureBy(SIGNER) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual([{ field: 'body', message: 'must be UTF-8 JSON' }]);
  });

  it('never quotes a token in a validation error', async () => {
    const { send } = makeSut();
    const token = unknownKey();
    const error = (await send([leak(token, { type: 7 })]).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(JSON.stringify({ message: error.message, errors: error.errors })).not.toContain(token.slice(4));
  });

  it('takes url and source as optional, records them as null, and ignores fields it does not know', async () => {
    const { send, createKey, leaked } = makeSut();
    const { rawKey } = await createKey();
    const verdicts = await send([{ token: rawKey, type: 'keygate_api_key', url: null, extra: { nested: true } }]);
    expect(verdicts[0].label).toBe('true_positive');
    expect(leaked()[0].details).toEqual({ url: null, source: null, token_type: 'keygate_api_key' });
  });
});
