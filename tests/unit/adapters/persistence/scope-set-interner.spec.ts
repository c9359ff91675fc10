import { ScopeSetInterner } from '../../../../src/adapters/persistence/hot-path/scope-set-interner';
import { ScopeSetMother } from '../../../mothers/scope-set.mother';

describe('ScopeSetInterner', () => {
  it('hands out the first set it saw for the same scopes, full access included', () => {
    const sut = new ScopeSetInterner();
    const first = ScopeSetMother.of('projects:write', 'chat:read');
    expect(sut.intern(first)).toBe(first);
    expect(sut.intern(ScopeSetMother.of('projects:write', 'chat:read'))).toBe(first);
    const full = ScopeSetMother.full();
    expect(sut.intern(full)).toBe(full);
    expect(sut.intern(ScopeSetMother.full())).toBe(full);
    expect(sut.size).toBe(2);
  });

  it('never hands out a set with other scopes', () => {
    const sut = new ScopeSetInterner();
    sut.intern(ScopeSetMother.of('projects:read'));
    const write = ScopeSetMother.of('projects:write');
    expect(sut.intern(write)).toBe(write);
    expect(sut.intern(ScopeSetMother.full()).isFullAccess).toBe(true);
    expect(sut.intern(ScopeSetMother.of('models:read')).toArray()).toEqual(['models:read']);
  });

  it('keeps at most maxSets sets, and past that gives each caller its own back', () => {
    const sut = new ScopeSetInterner(2);
    sut.intern(ScopeSetMother.of('projects:read'));
    sut.intern(ScopeSetMother.of('chat:read'));
    const third = ScopeSetMother.of('models:read');
    expect(sut.intern(third)).toBe(third);
    expect(sut.intern(ScopeSetMother.of('models:read'))).not.toBe(third);
    expect(sut.size).toBe(2);
  });

  it('passes through a set that grants nothing, which has no array form', () => {
    const sut = new ScopeSetInterner();
    const nothing = ScopeSetMother.nothing();
    expect(sut.intern(nothing)).toBe(nothing);
    expect(sut.size).toBe(0);
  });
});
