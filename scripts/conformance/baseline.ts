import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ExpectedFailure {
  scenario: string;
  reason: string;
}

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

export interface Verdict {
  passed: string[];
  expectedFailures: ExpectedFailure[];
  /** Failed (or never reported) and not in the baseline. */
  unexpectedFailures: string[];
  /** In the baseline but passed: the entry is stale. */
  unexpectedPasses: string[];
  /** In the baseline but not a scenario of this suite version. */
  unknownEntries: string[];
}

/**
 * The expected-failures file is the suite's own YAML baseline (`server:` then
 * one `- <scenario>` a line, or `server: []` for none); we also insist on a
 * `# reason` after each entry. Only that shape is read, so no YAML library is needed.
 */
export function readExpectedFailures(file: string): ExpectedFailure[] {
  return parseExpectedFailures(readFileSync(file, 'utf8'), file);
}

export function parseExpectedFailures(text: string, file: string): ExpectedFailure[] {
  const entries: ExpectedFailure[] = [];
  let section = '';
  let empty = false; // the section was written `[]`: an entry under it contradicts that
  for (const [index, line] of text.split('\n').entries()) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const heading = /^(\w+):\s*(\[\])?\s*(#.*)?$/.exec(line);
    if (heading) {
      section = heading[1];
      empty = heading[2] !== undefined;
      continue;
    }
    const entry = /^\s+-\s+([\w/.-]+)\s*(?:#\s*(.*\S))?\s*$/.exec(line);
    if (!entry || empty) throw new Error(`${file}:${index + 1}: expected "  - <scenario>  # <reason>" under "${section}:", found ${JSON.stringify(line)}`);
    if (section !== 'server') continue;
    if (!entry[2]) throw new Error(`${file}:${index + 1}: ${entry[1]} needs a "# <reason>" saying why it is expected to fail`);
    entries.push({ scenario: entry[1], reason: entry[2] });
  }
  return entries;
}

/** Checks per scenario from the suite's output directory (`server-<scenario>-<timestamp>/checks.json`). */
export function readResults(outputDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!existsSync(outputDir)) return results;
  for (const entry of readdirSync(outputDir)) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = path.join(outputDir, entry, 'checks.json');
    if (name && existsSync(file)) results.set(name[1], JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return results;
}

/** The suite's rule: a scenario fails when any check is a FAILURE or a WARNING. */
export function failedChecks(checks: readonly Check[]): Check[] {
  return checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
}

export function judge(scenarios: readonly string[], results: ReadonlyMap<string, Check[]>, baseline: readonly ExpectedFailure[]): Verdict {
  const expected = new Map(baseline.map((entry) => [entry.scenario, entry]));
  const verdict: Verdict = { passed: [], expectedFailures: [], unexpectedFailures: [], unexpectedPasses: [], unknownEntries: [] };
  for (const scenario of scenarios) {
    const checks = results.get(scenario);
    const failed = checks === undefined || checks.length === 0 || failedChecks(checks).length > 0;
    const entry = expected.get(scenario);
    if (failed && entry) verdict.expectedFailures.push(entry);
    else if (failed) verdict.unexpectedFailures.push(scenario);
    else if (entry) verdict.unexpectedPasses.push(scenario);
    else verdict.passed.push(scenario);
  }
  verdict.unknownEntries = baseline.map((entry) => entry.scenario).filter((scenario) => !scenarios.includes(scenario));
  return verdict;
}

export function isGreen(verdict: Verdict): boolean {
  return verdict.unexpectedFailures.length + verdict.unexpectedPasses.length + verdict.unknownEntries.length === 0;
}
