import { Suite } from './conformance-cli';

export const SUITE_0_1_16: Suite = {
  name: '0.1.16',
  package: '@modelcontextprotocol/conformance@0.1.16',
  selection: ['--suite', 'all'],
  listing: [],
};
/** A pre-release (plan docs/design/mcp-2026-07-28.md, R12): the only one with the 2026-07-28 scenarios. */
const ALPHA_12 = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/** Exactly what a revision requires (its frozen requirements/<revision>.yaml), run at that revision's wire. */
export const SUITE_ALPHA_12_2025: Suite = {
  name: 'alpha12-2025',
  package: ALPHA_12,
  selection: ['--requirements', '2025-11-25'],
  listing: ['--requirements', '2025-11-25'],
};
export const SUITE_ALPHA_12_2026: Suite = {
  name: 'alpha12-2026',
  package: ALPHA_12,
  selection: ['--requirements', '2026-07-28'],
  listing: ['--requirements', '2026-07-28'],
};

/** What the suite runs against: the fixture upstream itself, or keygate's endpoint for it, or keygate's /mcp. */
export type TargetName = 'fixture' | 'mcp-servers-fixture' | 'mcp';

/** One run of the suite: a pinned version and scenario set, against one target, judged by one expected-failures file. */
export interface Leg {
  suite: Suite;
  target: TargetName;
  /** A file of scripts/conformance: the suite's own baseline, each entry with its reason. */
  expectedFailures: string;
}

/**
 * Every leg `npm run conformance` runs. The 0.1.16 legs (`--suite all`) are
 * the original ones. The alpha.12 legs run exactly what each revision
 * requires, at its own wire; their files list what fails today, so every
 * change that fixes a scenario or check must delete its entry (a stale entry
 * fails the run).
 */
export const LEGS: readonly Leg[] = [
  { suite: SUITE_0_1_16, target: 'fixture', expectedFailures: 'expected-failures-none.yml' },
  { suite: SUITE_ALPHA_12_2025, target: 'fixture', expectedFailures: 'expected-failures.alpha12-2025.fixture.yml' },
  { suite: SUITE_ALPHA_12_2026, target: 'fixture', expectedFailures: 'expected-failures.alpha12-2026.fixture.yml' },
  { suite: SUITE_0_1_16, target: 'mcp-servers-fixture', expectedFailures: 'expected-failures-none.yml' },
  { suite: SUITE_ALPHA_12_2025, target: 'mcp-servers-fixture', expectedFailures: 'expected-failures.alpha12-2025.mcp-servers-fixture.yml' },
  { suite: SUITE_ALPHA_12_2026, target: 'mcp-servers-fixture', expectedFailures: 'expected-failures.alpha12-2026.mcp-servers-fixture.yml' },
  { suite: SUITE_0_1_16, target: 'mcp', expectedFailures: 'expected-failures.yml' },
  { suite: SUITE_ALPHA_12_2025, target: 'mcp', expectedFailures: 'expected-failures.alpha12-2025.mcp.yml' },
  { suite: SUITE_ALPHA_12_2026, target: 'mcp', expectedFailures: 'expected-failures.alpha12-2026.mcp.yml' },
];

export function legsAgainst(...targets: TargetName[]): Leg[] {
  return LEGS.filter((leg) => targets.includes(leg.target));
}
