import fc from 'fast-check';
import { assertAlive, ContractError, Exchange, exchangeListeners, rpcMessages } from './contract';
import { FuzzRequest } from './fuzz-request';

/*
 * Runs the properties of tests/e2e/fuzz. Each sends generated requests one at
 * a time and checks every answer (contract.ts: no 5xx or JSON-RPC -32603, at
 * most 64 KiB, no row written by a 4xx); afterwards the app must still answer
 * GET /healthz.
 *
 * FUZZ_SEED=<n>    base seed (default fixed, so runs repeat); each property's seed derives from it
 * FUZZ_RUNS=<x>    multiplies every property's numRuns and time limit
 * FUZZ_SURVEY=1    no stopping at the first failure: run everything, print each kind of failure once
 */

/**
 * FUZZ_SURVEY=1 runs each property's numRuns (times FUZZ_RUNS) without
 * stopping at the first failure or shrinking, then prints how often each
 * outcome came up and, per kind of failure (route or MCP method, and problem),
 * how often it came up and its shortest example. For finding every distinct
 * failure at once, and for seeing what the generators reach.
 */
const SURVEY = Boolean(process.env.FUZZ_SURVEY);

function outcomeOf({ response }: Exchange): string {
  const codes = rpcMessages({ response })
    .map((m) => (m?.error as { code?: number } | undefined)?.code)
    .filter((c) => c !== undefined);
  const isError = /"isError":true/.test(response.body.toString('utf8')) ? ' isError' : '';
  return `${response.status}${codes.length > 0 ? ` rpc ${[...new Set(codes)].join(',')}` : ''}${isError}${response.bytes > 16 * 1024 ? ' >16KiB' : ''}`;
}

/** What a request was aimed at: the route pattern, or the JSON-RPC methods (and tools) of an /mcp body. */
function targetOf(r: FuzzRequest): string {
  const path = r.path.split('?')[0];
  if (!path.toLowerCase().startsWith('/mcp')) return `${r.method} ${path.replace(/^(\/api\/v1\/[a-z-]+\/).+$/, '$1:id')}`;
  let body: unknown;
  try {
    body = JSON.parse(r.text ?? '');
  } catch {
    return `${r.method} /mcp (not JSON)`;
  }
  const messages = (Array.isArray(body) ? body : [body]) as { method?: unknown; params?: { name?: unknown } }[];
  const methods = [
    ...new Set(
      messages.map((m) =>
        m?.method === 'tools/call' && typeof m.params?.name === 'string' ? `tools/call ${m.params.name}` : String(m?.method),
      ),
    ),
  ];
  return `${r.method} /mcp ${Array.isArray(body) ? 'batch of ' : ''}${methods.slice(0, 3).join(', ')}${methods.length > 3 ? ', …' : ''}`;
}

const sizeOf = (r: FuzzRequest) => r.path.length + (r.body?.length ?? 0);

async function runSurvey<T>(
  name: string,
  seed: number,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<unknown>,
  numRuns: number,
): Promise<void> {
  const outcomes: string[] = [];
  const listener = (ex: Exchange) => outcomes.push(outcomeOf(ex));
  exchangeListeners.add(listener);
  const failures = new Map<string, { count: number; error: ContractError }>();
  const others: string[] = [];
  try {
    for (const value of fc.sample(arbitrary, { seed, numRuns })) {
      try {
        await predicate(value);
      } catch (error) {
        if (!(error instanceof ContractError)) {
          others.push((error as Error).message);
          continue;
        }
        const kind = `${targetOf(error.exchange.request)}: ${error.problems.map((p) => p.replace(/\d+/g, 'N')).join('; ')}`;
        const seen = failures.get(kind);
        if (!seen) failures.set(kind, { count: 1, error });
        else
          failures.set(kind, {
            count: seen.count + 1,
            error: sizeOf(error.exchange.request) < sizeOf(seen.error.exchange.request) ? error : seen.error,
          });
      }
    }
    const tally = new Map<string, number>();
    for (const o of outcomes) tally.set(o, (tally.get(o) ?? 0) + 1);
    console.log(
      [
        `${name}: ${numRuns} runs, seed ${seed}`,
        ...[...tally].sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${n}\t${k}`),
        `${failures.size} kinds of failure${failures.size > 0 ? ':' : ''}`,
        ...[...failures].map(([kind, { count, error }]) => `  [${count}x] ${kind}\n    ${error.message.replace(/\n/g, '\n    ')}`),
        ...others.map((m) => `  other error: ${m}`),
      ].join('\n'),
    );
  } finally {
    exchangeListeners.delete(listener);
  }
  if (failures.size > 0 || others.length > 0) throw new Error(`${name}: ${failures.size + others.length} kinds of failure (printed above)`);
}

/** FUZZ_SEED replays a run (each property's seed is derived from it and the property's name); FUZZ_RUNS scales numRuns. */
const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_261_110);
const RUN_SCALE = Number(process.env.FUZZ_RUNS ?? 1);

function seedFor(name: string): number {
  let hash = BASE_SEED | 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

export interface FuzzOptions {
  numRuns: number;
  /** Runs, shrinking included, stop after this; a failure found until then is still reported. */
  timeLimitMs: number;
}

/**
 * fc.assert with a seed per property, bounded runs and time, then the liveness
 * check. A failure names the seed, how to replay it, and the error of the
 * smallest counterexample found.
 */
export async function fuzz<T>(
  name: string,
  baseUrl: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<unknown>,
  options: FuzzOptions,
): Promise<void> {
  const seed = seedFor(name);
  if (SURVEY) {
    try {
      return await runSurvey(name, seed, arbitrary, predicate, Math.max(1, Math.round(options.numRuns * RUN_SCALE)));
    } finally {
      await assertAlive(baseUrl);
    }
  }
  try {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        await predicate(value);
      }),
      {
        seed,
        numRuns: Math.max(1, Math.round(options.numRuns * RUN_SCALE)),
        plugins: [fc.interruptAfterTimeLimit(options.timeLimitMs * RUN_SCALE)],
      },
    );
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause;
    const test = expect.getState().currentTestName?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') ?? name;
    const replay = `Replay: FUZZ_SEED=${BASE_SEED} npx jest tests/e2e/fuzz -t '${test}' (property "${name}", seed ${seed}); FUZZ_SURVEY=1 lists every kind of failure.`;
    throw new Error(`${(error as Error).message}\n${replay}\nError of the counterexample: ${cause?.message ?? 'see above'}`, {
      cause: error,
    });
  } finally {
    await assertAlive(baseUrl);
  }
}
