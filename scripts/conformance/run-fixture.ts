import { conformanceMain, NO_EXPECTED_FAILURES, runTarget } from './conformance-run';
import { FixtureUpstream } from './fixture-upstream';

/**
 * npm run conformance:fixture [-- --verbose]: every server scenario of the
 * suite against the fixture upstream directly (no keygate), with no expected
 * failures. It shows that the fixture is a complete server for the suite, so
 * that a scenario failing through keygate is keygate's doing.
 */
conformanceMain(async (run) => {
  const fixture = await FixtureUpstream.start();
  try {
    return await runTarget(run, { name: 'fixture', url: fixture.url, expectedFailuresFile: NO_EXPECTED_FAILURES });
  } finally {
    await fixture.stop();
  }
});
