import { generateKeyPairSync } from 'node:crypto';
import { JwksKeySet, JwksKeySetOptions, JwksSigningKey } from '../../../../src/adapters/auth/jwks-key-set';

const PUBLIC_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
const key = (kid?: string): JwksSigningKey => ({ ...(kid !== undefined && { kid }), publicKey: PUBLIC_KEY });

/** A loader whose answers the test sets (a key list, or an Error to fail with), and whose calls it counts. */
function makeSut(options: Partial<JwksKeySetOptions> = {}) {
  let now = 1_000_000;
  let published: JwksSigningKey[] | Error = [key('a'), key('b')];
  const warnings: string[] = [];
  const sut = {
    loads: 0,
    set: new JwksKeySet({
      load: async () => {
        sut.loads += 1;
        if (published instanceof Error) throw published;
        return published;
      },
      refetchIntervalMs: 10_000,
      maxAgeMs: 600_000,
      now: () => now,
      warn: (message) => warnings.push(message),
      ...options,
    }),
    publish: (keys: JwksSigningKey[] | Error) => {
      published = keys;
    },
    advance: (ms: number) => {
      now += ms;
    },
    warnings,
  };
  return sut;
}

/** Lets a background fetch of resolved promises finish. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

const bogusKids = (n: number) => Array.from({ length: n }, (_, i) => `made-up-${i}`);

describe('JwksKeySet', () => {
  it('fetches the whole set once and answers every kid of it from memory', async () => {
    const sut = makeSut();
    expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' });
    expect(await sut.set.keyFor('b')).toMatchObject({ kid: 'b' });
    expect(sut.loads).toBe(1);
  });

  it('keeps answering known kids while made-up kids flood in, fetching at most once per interval for them', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a');
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(bogusKids(200).map((kid) => sut.set.keyFor(kid)));
      expect(answers.every((answer) => answer === null)).toBe(true);
      expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' });
      expect(await sut.set.keyFor('b')).toMatchObject({ kid: 'b' });
      sut.advance(10_000);
    }
    // The first load (which spent the first interval's allowance), then one per later interval.
    expect(sut.loads).toBe(3);
  });

  it('answers an unknown kid at once, with no fetch and no wait, when the allowance is spent', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a'); // the first fetch spends this interval's allowance
    sut.publish(new Promise(() => undefined) as never); // a fetch now would never end
    expect(await sut.set.keyFor('made-up')).toBeNull();
    expect(sut.loads).toBe(1);
  });

  it('picks up a key the provider added once the allowance permits a fetch, even under a flood', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a');
    await Promise.all(bogusKids(50).map((kid) => sut.set.keyFor(kid)));
    sut.publish([key('a'), key('b'), key('c')]);
    expect(await sut.set.keyFor('c')).toBeNull(); // the flood spent this interval's fetch
    sut.advance(10_000);
    expect(await sut.set.keyFor('c')).toMatchObject({ kid: 'c' });
    expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' });
  });

  it('keeps the last good set when a fetch fails, and says so', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a');
    sut.publish(new Error('HTTP 500'));
    sut.advance(10_000);
    expect(await sut.set.keyFor('made-up')).toBeNull();
    expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' });
    expect(sut.warnings).toEqual(['fetching the JWKS failed; keeping the keys held']);
  });

  it('refreshes a stale set in the background on a budget made-up kids cannot spend, and then drops a withdrawn key', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a');
    sut.advance(595_000);
    sut.publish(new Error('HTTP 503'));
    expect(await sut.set.keyFor('made-up')).toBeNull(); // spends the unknown-kid allowance, and fails
    sut.advance(5_000);
    sut.publish([key('b')]);
    expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' }); // served while the refresh runs
    await settled();
    expect(await sut.set.keyFor('a')).toBeNull();
    expect(await sut.set.keyFor('b')).toMatchObject({ kid: 'b' });
    expect(sut.loads).toBe(3);
  });

  it('never holds a known kid behind a fetch under way', async () => {
    const sut = makeSut();
    await sut.set.keyFor('a');
    sut.publish(new Promise(() => undefined) as never);
    sut.advance(600_000);
    expect(await sut.set.keyFor('a')).toMatchObject({ kid: 'a' }); // starts a refresh that never ends
    expect(await sut.set.keyFor('b')).toMatchObject({ kid: 'b' });
    expect(sut.loads).toBe(2);
  });

  it('uses the only key of a one-key set for a token without kid, and none of a larger set', async () => {
    const one = makeSut();
    one.publish([key()]);
    expect(await one.set.keyFor(undefined)).not.toBeNull();
    const two = makeSut();
    expect(await two.set.keyFor(undefined)).toBeNull();
  });
});
