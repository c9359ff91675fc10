import { randomBytes, randomUUID } from 'node:crypto';
import { NewApiKey } from '../../src/application/ports/api-key-repository.port';
import { ApiKey, ApiKeyProps } from '../../src/domain/api-key';
import { ScopeSetMother } from './scope-set.mother';

/** A fixed instant the key dates are built around. */
export const KEY_EPOCH = new Date('2026-06-01T12:00:00.000Z');

/** Stored API keys and keys about to be stored: valid by default, each test overriding what it is about. */
export const ApiKeyMother = {
  props(overrides: Partial<ApiKeyProps> = {}): ApiKeyProps {
    const id = overrides.id ?? randomUUID();
    return {
      id,
      name: 'ci',
      keyPrefix: 'svc_abcd',
      keyHash: randomBytes(32).toString('hex'),
      userId: randomUUID(),
      scopes: ScopeSetMother.full(),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      createdAt: new Date(KEY_EPOCH.getTime() - 86_400_000),
      replacedBy: null,
      rateLimit: null,
      quota: null,
      budgetId: id,
      ...overrides,
    };
  },
  active(overrides: Partial<ApiKeyProps> = {}): ApiKey {
    return ApiKey.restore(ApiKeyMother.props(overrides));
  },
  revoked(at: Date = KEY_EPOCH, overrides: Partial<ApiKeyProps> = {}): ApiKey {
    return ApiKey.restore(ApiKeyMother.props({ revokedAt: at, ...overrides }));
  },
  expired(at: Date = KEY_EPOCH, overrides: Partial<ApiKeyProps> = {}): ApiKey {
    return ApiKey.restore(ApiKeyMother.props({ expiresAt: at, ...overrides }));
  },
  /** What CreateKey hands the repository. */
  unsaved(overrides: Partial<NewApiKey> = {}): NewApiKey {
    const { id: _id, lastUsedAt: _used, revokedAt: _revoked, replacedBy: _replaced, budgetId: _budget, ...unsaved } = ApiKeyMother.props();
    return { ...unsaved, ...overrides };
  },
};
