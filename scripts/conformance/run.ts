import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Check, ExpectedFailure, failedChecks, isGreen, judge, readExpectedFailures, readResults, Verdict } from './baseline';
import { BearerProxy } from './bearer-proxy';
import { ConformanceCli, ConformanceFetchError, SUITE_PACKAGE } from './conformance-cli';
import { KeygateUnderTest } from './keygate-under-test';

const EXPECTED_FAILURES = path.resolve(__dirname, '..', '..', '..', 'scripts', 'conformance', 'expected-failures.yml');

/**
 * npm run conformance [-- --verbose]: the official MCP conformance suite's
 * server scenarios against the compiled service on a throwaway PostgreSQL,
 * through a loopback proxy that adds a full-access key (the suite sends no
 * credentials). Exits 1 when a scenario fails that expected-failures.yml does
 * not list, or passes although it does.
 */
async function main(verbose: boolean): Promise<number> {
  const baseline = readExpectedFailures(EXPECTED_FAILURES);
  const work = mkdtempSync(path.join(os.tmpdir(), 'keygate-conformance-'));
  chmodSync(work, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directory
  let keep = false; // a run that went wrong keeps its logs and results
  try {
    const cli = new ConformanceCli(work);
    const { nodeVersion, scenarios } = await cli.fetch();
    console.log(`conformance: ${SUITE_PACKAGE} on Node ${nodeVersion}, ${scenarios.length} server scenarios`);
    const service = await KeygateUnderTest.start(work);
    try {
      keep = !(await runSuite(cli, service, work, scenarios, baseline, verbose));
    } finally {
      await service.stop();
    }
    if (keep) console.log(`conformance: kept ${work}: conformance.log (the suite's output), results/ (checks per scenario), service.log`);
    return keep ? 1 : 0;
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

/** Resolves true when every scenario matched the baseline and the suite agreed. */
async function runSuite(
  cli: ConformanceCli,
  service: KeygateUnderTest,
  work: string,
  scenarios: string[],
  baseline: ExpectedFailure[],
  verbose: boolean,
): Promise<boolean> {
  const proxy = await BearerProxy.start(service.baseUrl, service.fullAccessKey);
  try {
    const outputDir = path.join(work, 'results');
    const code = await cli.runServer(`${proxy.origin}/mcp`, EXPECTED_FAILURES, outputDir, path.join(work, 'conformance.log'), verbose);
    const results = readResults(outputDir);
    const verdict = judge(scenarios, results, baseline);
    report(verdict, results);
    if (isGreen(verdict) && code !== 0) console.log(`conformance: the suite exited ${code ?? '(timed out)'} although every result matched the baseline`);
    return isGreen(verdict) && code === 0;
  } finally {
    await proxy.close();
  }
}

function report(verdict: Verdict, results: ReadonlyMap<string, Check[]>): void {
  for (const scenario of verdict.passed) console.log(`  pass      ${scenario}`);
  for (const { scenario, reason } of verdict.expectedFailures) console.log(`  expected  ${scenario}: ${reason}`);
  for (const scenario of verdict.unexpectedFailures) {
    const checks = results.get(scenario);
    const why = checks ? failedChecks(checks).map((c) => `${c.id} (${c.status}): ${c.errorMessage ?? 'no message'}`) : ['no results: the scenario did not run'];
    console.log(`  FAIL      ${scenario}: not in expected-failures.yml\n            ${why.join('\n            ')}`);
  }
  for (const scenario of verdict.unexpectedPasses) console.log(`  PASS?     ${scenario}: passes now; remove it from expected-failures.yml`);
  for (const scenario of verdict.unknownEntries) console.log(`  UNKNOWN   ${scenario}: in expected-failures.yml but not a scenario of ${SUITE_PACKAGE}`);
  console.log(
    `conformance: ${verdict.passed.length} passed, ${verdict.expectedFailures.length} expected failures, ` +
      `${verdict.unexpectedFailures.length} unexpected failures, ${verdict.unexpectedPasses.length + verdict.unknownEntries.length} stale baseline entries`,
  );
}

main(process.argv.includes('--verbose')).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`conformance: ${error instanceof ConformanceFetchError ? error.message : ((error as Error)?.stack ?? error)}`);
    process.exit(1);
  },
);
