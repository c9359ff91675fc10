import { existsSync } from 'node:fs';

/** Whether any of these paths exists: where a distribution's package puts a program. */
export function installedAt(candidates: (string | undefined)[]): boolean {
  return candidates.some((candidate) => candidate !== undefined && existsSync(candidate));
}

/**
 * Tests that drive an operating-system program (nginx, chromium) run where it is
 * installed. On a machine with Node alone they are skipped, with one line saying
 * what to install, so `npm test` stays true there; under CI=true a missing
 * program is not skipped, so the test fails with that message instead of
 * passing for having run nothing.
 */
export function describeWithProgram(program: string, installed: boolean, install: string): jest.Describe {
  if (installed) return describe;
  if (process.env.CI === 'true') return describe;
  process.stderr.write(`skipped: ${program} is not installed (${install}); these tests run in CI\n`);
  return describe.skip;
}
