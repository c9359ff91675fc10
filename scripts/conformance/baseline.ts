import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One baseline entry: a whole scenario, or one check of it (`<scenario>:<check-id>`). */
export interface ExpectedFailure {
  scenario: string;
  check?: string;
  reason: string;
}

export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

/** A scenario, or `<scenario>:<check-id>` where the baseline names checks. */
export type Label = string;

export interface Verdict {
  /** Scenarios with no failed check (a baselined check that was not reached does not count). */
  passed: string[];
  /** Scenarios that failed only in what their entries excuse. */
  failedAsExpected: string[];
  /** The entries that excused those failures. */
  expectedFailures: ExpectedFailure[];
  /** Per-check entries whose check never ran or was skipped: the suite tolerates them (a prerequisite failed). */
  notReached: ExpectedFailure[];
  /** Failed (or never reported) and not in the baseline. */
  unexpectedFailures: Label[];
  /** In the baseline but passed: the entry is stale. */
  unexpectedPasses: Label[];
  /** In the baseline but not a scored scenario of this suite run. */
  unknownEntries: Label[];
}

/**
 * The expected-failures file is the suite's own YAML baseline (`server:` then
 * one `- <scenario>` or `- <scenario>:<check-id>` a line, or `server: []` for
 * none); we also insist on a `# reason` after each entry. Only that shape is
 * read, so no YAML library is needed.
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
    // No space after the colon: `- a: b` is a YAML mapping, which the suite rejects.
    const entry = /^\s+-\s+([\w/.-]+)(?::([\w/.-]+))?\s*(?:#\s*(.*\S))?\s*$/.exec(line);
    if (!entry || empty) {
      throw new Error(
        `${file}:${index + 1}: expected "  - <scenario>[:<check-id>]  # <reason>" under "${section}:", found ${JSON.stringify(line)}`,
      );
    }
    if (section !== 'server') continue;
    const label = entry[2] ? `${entry[1]}:${entry[2]}` : entry[1];
    if (!entry[3]) throw new Error(`${file}:${index + 1}: ${label} needs a "# <reason>" saying why it is expected to fail`);
    entries.push(entry[2] ? { scenario: entry[1], check: entry[2], reason: entry[3] } : { scenario: entry[1], reason: entry[3] });
  }
  for (const entry of entries) {
    if (entry.check && entries.some((other) => other.scenario === entry.scenario && !other.check)) {
      throw new Error(
        `${file}: ${entry.scenario} is expected to fail whole, so ${entry.scenario}:${entry.check} contradicts it (the suite rejects the pair)`,
      );
    }
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

const SEVERITY: Record<Check['status'], number> = { FAILURE: 3, WARNING: 2, SUCCESS: 1, SKIPPED: 0, INFO: -1 };

/** As the suite judges per-check entries: the occurrences of one check id collapse to the most severe (INFO aside). */
export function worstPerCheck(checks: readonly Check[]): Map<string, Check> {
  const worst = new Map<string, Check>();
  for (const check of checks) {
    if (check.status === 'INFO') continue;
    const seen = worst.get(check.id);
    if (!seen || SEVERITY[check.status] >= SEVERITY[seen.status]) worst.set(check.id, check);
  }
  return worst;
}

/**
 * The suite's exit-code rules, applied to the scenarios it scores: a whole
 * entry must fail, a per-check entry's check must not pass (absent or skipped
 * is tolerated), and every other failed check is unexpected.
 */
export function judge(scenarios: readonly string[], results: ReadonlyMap<string, Check[]>, baseline: readonly ExpectedFailure[]): Verdict {
  const verdict: Verdict = {
    passed: [],
    failedAsExpected: [],
    expectedFailures: [],
    notReached: [],
    unexpectedFailures: [],
    unexpectedPasses: [],
    unknownEntries: [],
  };
  for (const scenario of scenarios) {
    const checks = results.get(scenario) ?? [];
    const entries = baseline.filter((entry) => entry.scenario === scenario);
    const whole = entries.find((entry) => !entry.check);
    const failed = checks.length === 0 || failedChecks(checks).length > 0;
    if (whole) {
      if (failed) {
        verdict.failedAsExpected.push(scenario);
        verdict.expectedFailures.push(whole);
      } else verdict.unexpectedPasses.push(scenario);
      continue;
    }
    if (entries.length === 0 || checks.length === 0) {
      if (failed) verdict.unexpectedFailures.push(scenario);
      else verdict.passed.push(scenario);
      continue;
    }
    const worst = worstPerCheck(checks);
    const unexcused = failedChecks([...worst.values()]).filter((check) => !entries.some((entry) => entry.check === check.id));
    verdict.unexpectedFailures.push(...unexcused.map((check) => `${scenario}:${check.id}`));
    for (const entry of entries) {
      const status = worst.get(entry.check!)?.status;
      if (status === 'SUCCESS') verdict.unexpectedPasses.push(`${scenario}:${entry.check}`);
      else if (status === 'FAILURE' || status === 'WARNING') verdict.expectedFailures.push(entry);
      else verdict.notReached.push(entry);
    }
    if (!failed) verdict.passed.push(scenario);
    else if (unexcused.length === 0) verdict.failedAsExpected.push(scenario);
  }
  verdict.unknownEntries = baseline.filter((entry) => !scenarios.includes(entry.scenario)).map((entry) => label(entry));
  return verdict;
}

export function label(entry: ExpectedFailure): Label {
  return entry.check ? `${entry.scenario}:${entry.check}` : entry.scenario;
}

export function isGreen(verdict: Verdict): boolean {
  return verdict.unexpectedFailures.length + verdict.unexpectedPasses.length + verdict.unknownEntries.length === 0;
}
