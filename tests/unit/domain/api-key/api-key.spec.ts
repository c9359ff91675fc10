import { ApiKey, ApiKeyProps } from '../../../../src/domain/api-key';
import { ApiKeyMother, KEY_EPOCH } from '../../../mothers/api-key.mother';

const NOW = KEY_EPOCH;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

const key = (overrides: Partial<ApiKeyProps> = {}): ApiKey => ApiKeyMother.active(overrides);

describe('ApiKey.stateAt', () => {
  it('is active when neither revoked nor expiring', () => {
    expect(key().stateAt(NOW)).toBe('active');
    expect(key().isUsableAt(NOW)).toBe(true);
  });

  it('is active while expires_at is in the future', () => {
    const k = key({ expiresAt: at(1) });
    expect(k.stateAt(NOW)).toBe('active');
    expect(k.isUsableAt(NOW)).toBe(true);
  });

  it('is expired when expires_at is exactly now', () => {
    const k = key({ expiresAt: at(0) });
    expect(k.stateAt(NOW)).toBe('expired');
    expect(k.isUsableAt(NOW)).toBe(false);
  });

  it('is expired when expires_at is in the past', () => {
    expect(key({ expiresAt: at(-1) }).stateAt(NOW)).toBe('expired');
  });

  it('moves from active to expired as time passes', () => {
    const k = key({ expiresAt: at(60_000) });
    expect(k.stateAt(NOW)).toBe('active');
    expect(k.stateAt(at(60_000))).toBe('expired');
  });

  it('is revoked once revoked_at is set, even before its revocation time', () => {
    const k = key({ revokedAt: at(3_600_000) });
    expect(k.stateAt(NOW)).toBe('revoked');
    expect(k.isUsableAt(NOW)).toBe(false);
  });

  it('reports revoked rather than expired when both apply', () => {
    expect(key({ revokedAt: at(-2), expiresAt: at(-1) }).stateAt(NOW)).toBe('revoked');
  });
});

describe('ApiKey', () => {
  it('exposes its properties and knows its owner', () => {
    const k = key({ name: 'deploy', lastUsedAt: at(-5), userId: '0b8e1a52-5c1d-4d7f-8a3e-2f9c6b1d4e70' });
    expect(k.name).toBe('deploy');
    expect(k.keyPrefix).toBe('svc_abcd');
    expect(k.lastUsedAt).toEqual(at(-5));
    expect(k.ownedBy('0b8e1a52-5c1d-4d7f-8a3e-2f9c6b1d4e70')).toBe(true);
    expect(k.ownedBy('11111111-1111-4111-8111-111111111111')).toBe(false);
  });

  it('restore copies the props so later changes to them do not leak in', () => {
    const props = ApiKeyMother.props();
    const k = ApiKey.restore(props);
    props.revokedAt = NOW;
    expect(k.stateAt(NOW)).toBe('active');
  });
});
