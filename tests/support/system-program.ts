import { existsSync } from 'node:fs';

/**
 * Tests that drive an operating-system program (nginx, chromium) run where it is
 * installed. On a machine with Node alone they are skipped, with one line saying
 * what to install, so `npm test` stays true there; under CI=true a missing
 * program is not skipped, so the test fails with that message instead of
 * passing for having run nothing.
 */
export function describeWithProgram(program: string, candidates: (string | undefined)[], install: string): jest.Describe {
  if (candidates.some((candidate) => candidate && existsSync(candidate))) return describe;
  if (process.env.CI === 'true') return describe;
  process.stderr.write(`skipped: ${program} is not installed (${install}); these tests run in CI\n`);
  return describe.skip;
}
