import { conformanceMain, runLegs } from './conformance-run';
import { FixtureUpstream } from './fixture-upstream';
import { legsAgainst } from './legs';

/**
 * npm run conformance:fixture [-- --verbose]: every leg of legs.ts against the
 * fixture upstream directly (no keygate). The 0.1.16 leg expects no failures:
 * the fixture is a complete server for that suite, so that a scenario failing
 * through keygate is keygate's doing.
 */
const legs = legsAgainst('fixture');
conformanceMain(legs, async (run) => {
  const fixture = await FixtureUpstream.start();
  try {
    return await runLegs(run, legs, { fixture: fixture.url });
  } finally {
    await fixture.stop();
  }
});
