import { ApiKeyMother } from '../../../mothers/api-key.mother';
import { plainAttributeParsers } from '../../../../src/domain/api-key';

describe('ApiKey.attributes', () => {
  it('holds what the owner sets, never the hash, the id, the owner or the dates the service assigns', () => {
    const key = ApiKeyMother.active({ rateLimit: undefined, quota: undefined });
    const held = Object.keys(key.attributes);
    expect(held).toEqual(expect.arrayContaining(['name', 'scopes', 'expiresAt', 'rateLimit', 'quota']));
    for (const assigned of ['id', 'keyPrefix', 'keyHash', 'userId', 'lastUsedAt', 'revokedAt', 'createdAt', 'replacedBy', 'budgetId'])
      expect(held).not.toContain(assigned);
    expect(key.attributes).toMatchObject({ name: 'ci', rateLimit: null, quota: null });
  });
});

describe('plainAttributeParsers', () => {
  it('parses every plain attribute at create, so a missing required one is refused', () => {
    const parsers = plainAttributeParsers({}, false);
    expect(Object.keys(parsers)).toContain('name');
    expect(() => parsers.name?.()).toThrow();
    expect(plainAttributeParsers({ name: 'ci' }, false).name?.()).toBe('ci');
  });

  it('parses only the attributes given at update', () => {
    expect(plainAttributeParsers({}, true)).toEqual({});
    expect(plainAttributeParsers({ name: 'ci' }, true).name?.()).toBe('ci');
  });
});
