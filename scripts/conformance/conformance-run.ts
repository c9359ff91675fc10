import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Check, failedChecks, isGreen, judge, readExpectedFailures, readResults, Verdict, worstPerCheck } from './baseline';
import { ConformanceCli, ConformanceFetchError, Suite } from './conformance-cli';
import { Leg } from './legs';

/** A suite version fetched for this run, with the server scenarios it scores. */
interface FetchedSuite {
  cli: ConformanceCli;
  scenarios: string[];
}

/** One leg's outcome, for the summary at the end. */
interface LegOutcome {
  leg: Leg;
  scored: number;
  verdict: Verdict;
  green: boolean;
  elapsedMs: number;
}

export interface Run {
  suites: ReadonlyMap<string, FetchedSuite>;
  /** Scratch directory, kept (with every log and result) when the run failed. */
  work: string;
  verbose: boolean;
  outcomes: LegOutcome[];
}

/** An expected-failures file of scripts/conformance, from the compiled script's place in dist. */
export function expectedFailures(file: string): string {
  return path.resolve(__dirname, '..', '..', '..', 'scripts', 'conformance', file);
}

/**
 * The shape every conformance command shares: fetch the pinned suites its
 * legs use, let `body` start what it tests and run the legs, print one line
 * per leg, exit 0 only when `body` resolved true. A run that went wrong (or
 * ran with `--keep`) keeps its work directory.
 */
export function conformanceMain(legs: readonly Leg[], body: (run: Run) => Promise<boolean>): void {
  const verbose = process.argv.includes('--verbose');
  const keepAlways = process.argv.includes('--keep');
  const work = mkdtempSync(path.join(os.tmpdir(), 'keygate-conformance-'));
  chmodSync(work, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directory
  let green = false;
  const suites = new Map<string, FetchedSuite>();
  const run: Run = { suites, work, verbose, outcomes: [] };
  (async () => {
    for (const suite of new Set(legs.map((leg) => leg.suite))) {
      const cli = new ConformanceCli(work, suite);
      const { nodeVersion, scenarios } = await cli.fetch();
      console.log(`conformance: ${describe(suite)} on Node ${nodeVersion}, ${scenarios.length} scored server scenarios`);
      suites.set(suite.name, { cli, scenarios });
    }
    green = await body(run);
  })()
    .catch((error: unknown) => {
      console.error(`conformance: ${error instanceof ConformanceFetchError ? error.message : ((error as Error)?.stack ?? String(error))}`);
    })
    .finally(() => {
      summarize(run.outcomes);
      if (green && !keepAlways) rmSync(work, { recursive: true, force: true });
      else
        console.log(
          `conformance: kept ${work}: per leg, conformance.log (the suite's output) and results/ (checks per scenario); service.log when keygate ran`,
        );
      process.exit(green ? 0 : 1);
    });
}

/** Runs every leg (none stops the others) and resolves true when all of them were green. */
export async function runLegs(run: Run, legs: readonly Leg[], urls: Partial<Record<Leg['target'], string>>): Promise<boolean> {
  let green = true;
  for (const leg of legs) {
    const url = urls[leg.target];
    if (!url) throw new Error(`no URL for target ${leg.target}`);
    green = (await runLeg(run, leg, url)) && green;
  }
  return green;
}

/** Resolves true when every scored scenario matched the leg's expected failures and the suite agreed. */
async function runLeg(run: Run, leg: Leg, url: string): Promise<boolean> {
  const { cli, scenarios } = run.suites.get(leg.suite.name)!;
  const file = expectedFailures(leg.expectedFailures);
  const baseline = readExpectedFailures(file);
  const dir = path.join(run.work, `${leg.suite.name}.${leg.target}`);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const outputDir = path.join(dir, 'results');
  const code = await cli.runServer(url, file, outputDir, path.join(dir, 'conformance.log'), run.verbose);
  const results = readResults(outputDir);
  const verdict = judge(scenarios, results, baseline);
  const elapsedMs = Date.now() - started;
  report(leg, url, verdict, results);
  if (isGreen(verdict) && code !== 0)
    console.log(`conformance [${name(leg)}]: the suite exited ${code ?? '(timed out)'} although every result matched the baseline`);
  const green = isGreen(verdict) && code === 0;
  run.outcomes.push({ leg, scored: scenarios.length, verdict, green, elapsedMs });
  return green;
}

function name(leg: Leg): string {
  return `${leg.suite.name} ${leg.target}`;
}

function describe(suite: Suite): string {
  return `${suite.package} ${suite.selection.join(' ')}`;
}

function report(leg: Leg, url: string, verdict: Verdict, results: ReadonlyMap<string, Check[]>): void {
  const file = leg.expectedFailures;
  console.log(`conformance [${name(leg)}]: ${describe(leg.suite)} against ${url}, expected failures from ${file}`);
  for (const scenario of verdict.passed) console.log(`  pass      ${scenario}`);
  for (const entry of verdict.expectedFailures)
    console.log(`  expected  ${entry.check ? `${entry.scenario}:${entry.check}` : entry.scenario}: ${entry.reason}`);
  for (const entry of verdict.notReached) console.log(`  expected  ${entry.scenario}:${entry.check} (not reached): ${entry.reason}`);
  for (const label of verdict.unexpectedFailures) {
    const [scenario, check] = label.split(':');
    const checks = results.get(scenario);
    const failed = checks ? failedChecks(check ? [worstPerCheck(checks).get(check)!] : checks) : [];
    const why = checks
      ? failed.map((c) => `${c.id} (${c.status}): ${c.errorMessage ?? 'no message'}`)
      : ['no results: the scenario did not run'];
    console.log(`  FAIL      ${label}: not in ${file}\n            ${why.join('\n            ')}`);
  }
  for (const label of verdict.unexpectedPasses) console.log(`  PASS?     ${label}: passes now; remove it from ${file}`);
  for (const label of verdict.unknownEntries)
    console.log(`  UNKNOWN   ${label}: in ${file} but not a scored scenario of ${describe(leg.suite)}`);
}

/** One line per leg, whatever the scenarios said above it. */
function summarize(outcomes: readonly LegOutcome[]): void {
  if (outcomes.length === 0) return;
  console.log('conformance summary (scenarios passed of scored; failed as expected; unexpected failures; stale baseline entries):');
  for (const { leg, scored, verdict, green, elapsedMs } of outcomes) {
    const stale = verdict.unexpectedPasses.length + verdict.unknownEntries.length;
    console.log(
      `  ${green ? 'ok  ' : 'FAIL'} ${describe(leg.suite).padEnd(72)} ${leg.target.padEnd(20)} ` +
        `${`${verdict.passed.length}/${scored} passed`.padEnd(14)} ${`${verdict.failedAsExpected.length} expected`.padEnd(12)} ` +
        `${`${verdict.unexpectedFailures.length} unexpected`.padEnd(14)} ${`${stale} stale`.padEnd(8)} ${(elapsedMs / 1000).toFixed(1)} s`,
    );
  }
}
