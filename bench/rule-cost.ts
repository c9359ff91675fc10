import { LoadResult } from './load';
import { combined, Measured, measured } from './rounds';

/** (k)'s rule: on (e)'s tool, never matching (e)'s `get`, so every call evaluates it and goes on. */
export const NON_MATCHING_RULE = { when: 'args.action == "delete" && args.id == "never"', effect: 'deny', message: 'bench: never matches' };

export interface RuleCost {
  without: Measured;
  with: Measured;
  ratio: number;
  roundRatios: number[];
}

/**
 * (k): (e) with one non-matching rule on its tool against (e) without, in
 * alternating rounds on the same service. The rule is written before each
 * (k) round and cleared before each (e) round, outside the measured time.
 */
export async function measureRuleCost(options: {
  pid: number;
  baseUrl: string;
  adminToken: string;
  tool: string;
  seconds: number;
  rounds: number;
  run: (seconds: number) => Promise<LoadResult>;
}): Promise<RuleCost> {
  const rules = (list: unknown[]) =>
    fetch(`${options.baseUrl}/api/v1/tool-rules/${options.tool}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rules: list }),
    }).then(async (res) => {
      if (res.status !== 200) throw new Error(`PUT /api/v1/tool-rules/${options.tool} answered ${res.status}: ${await res.text()}`);
    });
  const without: Measured[] = [];
  const withRule: Measured[] = [];
  for (let round = 0; round < options.rounds; round++) {
    await rules([]);
    without.push(await measured(options.pid, () => options.run(options.seconds / options.rounds)));
    await rules([NON_MATCHING_RULE]);
    withRule.push(await measured(options.pid, () => options.run(options.seconds / options.rounds)));
  }
  await rules([]);
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  const w = combined(without);
  const k = combined(withRule);
  return {
    without: w,
    with: k,
    ratio: round3(k.requests / w.requests),
    roundRatios: without.map((r, i) => round3(withRule[i].requests / r.requests)),
  };
}
