import { CachedBuiltInRules } from '../../../../src/adapters/persistence/cached-built-in-rules';
import { BuiltInToolRules } from '../../../../src/application/ports/tool-rule-store.port';

const rule = (message: string) => ({ when: 'true', effect: 'deny' as const, message });

function makeSut() {
  let now = 0;
  let rows: BuiltInToolRules[] = [{ tool: 'projects', rules: [rule('one')], updatedAt: new Date(0) }];
  let reads = 0;
  let holding = false;
  let release: () => void = () => undefined;
  const store = {
    list: async () => {
      reads += 1;
      const snapshot = rows;
      if (!holding) return snapshot;
      holding = false;
      await new Promise<void>((resolve) => (release = resolve));
      return snapshot;
    },
  };
  const sut = new CachedBuiltInRules(store, 5000, () => now);
  sut.enable();
  return {
    sut,
    reads: () => reads,
    advance: (ms: number) => (now += ms),
    write: (message: string) => (rows = [{ tool: 'projects', rules: [rule(message)], updatedAt: new Date(now) }]),
    hold: () => (holding = true),
    releaseRead: () => release(),
  };
}

describe('CachedBuiltInRules', () => {
  it("drops its copy when another replica's change is notified, and keeps none while the listener is down", async () => {
    const { sut, reads, write } = makeSut();
    expect(await sut.rulesFor('projects')).toEqual([rule('one')]);
    write('two');
    expect(await sut.rulesFor('projects')).toEqual([rule('one')]);
    sut.evict();
    expect(await sut.rulesFor('projects')).toEqual([rule('two')]);
    expect(reads()).toBe(2);
    sut.disable();
    await sut.rulesFor('projects');
    await sut.rulesFor('projects');
    expect(reads()).toBe(4);
    sut.enable();
    await sut.rulesFor('projects');
    await sut.rulesFor('projects');
    expect(reads()).toBe(5);
  });

  it('reads the table once per lifetime, shared by every call meanwhile', async () => {
    const { sut, reads, advance, write } = makeSut();
    expect(await Promise.all([sut.rulesFor('projects'), sut.rulesFor('agents')])).toEqual([[rule('one')], []]);
    write('two');
    advance(4999);
    expect(await sut.rulesFor('projects')).toEqual([rule('one')]);
    expect(reads()).toBe(1);
    advance(1);
    expect(await sut.rulesFor('projects')).toEqual([rule('two')]);
    expect(reads()).toBe(2);
  });

  it('drops its copy on forget, and keeps no read that began before it', async () => {
    const { sut, write, hold, releaseRead } = makeSut();
    hold();
    const early = sut.rulesFor('projects');
    await Promise.resolve();
    write('two');
    sut.forget();
    releaseRead();
    expect(await early).toEqual([rule('one')]);
    expect(await sut.rulesFor('projects')).toEqual([rule('two')]);
  });
});
