import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Check, failedChecks, isGreen, judge, readExpectedFailures, readResults, Verdict } from './baseline';
import { ConformanceCli, ConformanceFetchError, SUITE_PACKAGE } from './conformance-cli';

/** One run of the suite: every server scenario against a URL, judged by an expected-failures file. */
export interface Target {
  /** Names the run in the output and its directory under the work directory. */
  name: string;
  url: string;
  expectedFailuresFile: string;
}

export interface Run {
  cli: ConformanceCli;
  scenarios: string[];
  /** Scratch directory, kept (with every log and result) when the run failed. */
  work: string;
  verbose: boolean;
}

/** An expected-failures file of scripts/conformance, from the compiled script's place in dist. */
export function expectedFailures(file: string): string {
  return path.resolve(__dirname, '..', '..', '..', 'scripts', 'conformance', file);
}

/** Where every scenario must pass: the fixture upstream itself (and /mcp/servers/fixture, once the relay has landed). */
export const NO_EXPECTED_FAILURES = expectedFailures('expected-failures-none.yml');

/**
 * The shape every conformance command shares: fetch the pinned suite, let
 * `body` start what it tests and run its targets, exit 0 only when it
 * resolved true. A run that went wrong (or ran with `--keep`) keeps its work directory.
 */
export function conformanceMain(body: (run: Run) => Promise<boolean>): void {
  const verbose = process.argv.includes('--verbose');
  const keepAlways = process.argv.includes('--keep');
  const work = mkdtempSync(path.join(os.tmpdir(), 'keygate-conformance-'));
  chmodSync(work, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directory
  let green = false;
  (async () => {
    const cli = new ConformanceCli(work);
    const { nodeVersion, scenarios } = await cli.fetch();
    console.log(`conformance: ${SUITE_PACKAGE} on Node ${nodeVersion}, ${scenarios.length} server scenarios`);
    green = await body({ cli, scenarios, work, verbose });
  })()
    .catch((error: unknown) => {
      console.error(`conformance: ${error instanceof ConformanceFetchError ? error.message : ((error as Error)?.stack ?? error)}`);
    })
    .finally(() => {
      if (green && !keepAlways) rmSync(work, { recursive: true, force: true });
      else console.log(`conformance: kept ${work}: per target, conformance.log (the suite's output) and results/ (checks per scenario); service.log when keygate ran`);
      process.exit(green ? 0 : 1);
    });
}

/** Resolves true when every scenario matched the target's expected failures and the suite agreed. */
export async function runTarget({ cli, scenarios, work, verbose }: Run, target: Target): Promise<boolean> {
  const baseline = readExpectedFailures(target.expectedFailuresFile);
  const dir = path.join(work, target.name);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const outputDir = path.join(dir, 'results');
  const code = await cli.runServer(target.url, target.expectedFailuresFile, outputDir, path.join(dir, 'conformance.log'), verbose);
  const results = readResults(outputDir);
  const verdict = judge(scenarios, results, baseline);
  report(target, verdict, results, Date.now() - started);
  if (isGreen(verdict) && code !== 0) console.log(`conformance [${target.name}]: the suite exited ${code ?? '(timed out)'} although every result matched the baseline`);
  return isGreen(verdict) && code === 0;
}

function report(target: Target, verdict: Verdict, results: ReadonlyMap<string, Check[]>, elapsedMs: number): void {
  const file = path.basename(target.expectedFailuresFile);
  console.log(`conformance [${target.name}]: ${target.url}, expected failures from ${file}`);
  for (const scenario of verdict.passed) console.log(`  pass      ${scenario}`);
  for (const { scenario, reason } of verdict.expectedFailures) console.log(`  expected  ${scenario}: ${reason}`);
  for (const scenario of verdict.unexpectedFailures) {
    const checks = results.get(scenario);
    const why = checks ? failedChecks(checks).map((c) => `${c.id} (${c.status}): ${c.errorMessage ?? 'no message'}`) : ['no results: the scenario did not run'];
    console.log(`  FAIL      ${scenario}: not in ${file}\n            ${why.join('\n            ')}`);
  }
  for (const scenario of verdict.unexpectedPasses) console.log(`  PASS?     ${scenario}: passes now; remove it from ${file}`);
  for (const scenario of verdict.unknownEntries) console.log(`  UNKNOWN   ${scenario}: in ${file} but not a scenario of ${SUITE_PACKAGE}`);
  console.log(
    `conformance [${target.name}]: ${verdict.passed.length} passed, ${verdict.expectedFailures.length} expected failures, ` +
      `${verdict.unexpectedFailures.length} unexpected failures, ${verdict.unexpectedPasses.length + verdict.unknownEntries.length} stale baseline entries ` +
      `(${(elapsedMs / 1000).toFixed(1)} s)`,
  );
}
