/**
 * Limits for (e)'s key, high enough never to trip: the hot path then does
 * what a limited key costs (the rate window and the quota balance) without
 * ever answering 429. Field shapes as issue 13's first part takes them.
 */
export const BENCH_KEY_LIMITS = {
  rate_limit: { limit: 1_000_000, window_seconds: 1 },
  quota: { remaining: 1_000_000_000, refill: null },
};

/**
 * BENCH_KEY_LIMITS: `require` (the default) sends the limits and fails if
 * the service refuses them, so (e) cannot silently run on an unlimited key;
 * `auto` creates the key without them after a 400 and says so (for
 * comparing with a build before the limits); `off` never sends them.
 */
export type KeyLimitsMode = 'auto' | 'require' | 'off';

export interface BenchKey {
  rawKey: string;
  /** Whether the key carries the limits: `refused` means the service turned them down and the key has none. */
  limits: 'on' | 'off' | 'refused';
}

export function keyLimitsMode(value = process.env.BENCH_KEY_LIMITS ?? 'require'): KeyLimitsMode {
  if (value === 'auto' || value === 'require' || value === 'off') return value;
  throw new Error(`BENCH_KEY_LIMITS must be auto, require or off, not ${value}`);
}

export async function createBenchKey(baseUrl: string, token: string, name: string, mode: KeyLimitsMode): Promise<BenchKey> {
  const create = (body: Record<string, unknown>) =>
    fetch(`${baseUrl}/api/v1/api-keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name, ...body }),
    });
  if (mode !== 'off') {
    const res = await create(BENCH_KEY_LIMITS);
    if (res.status === 201) return { rawKey: await rawKeyOf(res), limits: 'on' };
    const problem = await res.text();
    if (res.status !== 400 || mode === 'require') throw new Error(`creating a key with limits answered ${res.status}: ${problem}`);
  }
  const res = await create({});
  if (res.status !== 201) throw new Error(`creating a key answered ${res.status}: ${await res.text()}`);
  return { rawKey: await rawKeyOf(res), limits: mode === 'off' ? 'off' : 'refused' };
}

async function rawKeyOf(res: Response): Promise<string> {
  return ((await res.json()) as { raw_key: string }).raw_key;
}
