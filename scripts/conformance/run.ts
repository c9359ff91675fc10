import { BearerProxy } from './bearer-proxy';
import { conformanceMain, runLegs } from './conformance-run';
import { FixtureUpstream } from './fixture-upstream';
import { KeygateUnderTest } from './keygate-under-test';
import { LEGS, legsAgainst } from './legs';

/**
 * npm run conformance [-- --verbose]: the official MCP conformance suite's
 * server scenarios against the compiled service on a throwaway PostgreSQL,
 * through a loopback proxy that adds a full-access key (the suite sends no
 * credentials). The fixture upstream runs beside it, registered for the key's
 * user as the MCP server `fixture`. Every leg of legs.ts (a suite version and
 * scenario set × a target) runs, each judged by its own expected-failures
 * file. Three targets: the fixture itself, so that a fixture that lost
 * something cannot hide behind keygate's expected failures;
 * /mcp/servers/fixture, the fixture through keygate under its own names; and
 * /mcp, where the fixture's names are namespaced (`fixture__<tool>`), expected
 * to fail what a namespaced multi-upstream endpoint cannot pass. Exits 1 when
 * a scenario (or check) fails that the leg's file does not list, or passes
 * although it does.
 */
conformanceMain(LEGS, async (run) => {
  const fixture = await FixtureUpstream.start();
  try {
    const fixtureGreen = await runLegs(run, legsAgainst('fixture'), { fixture: fixture.url });
    // The fixture listens on loopback, which upstreams may only be when allowed.
    const service = await KeygateUnderTest.start(run.work, { MCP_UPSTREAM_ALLOWLIST: '127.0.0.1' });
    try {
      await service.registerUpstream('fixture', fixture.url, 'test_simple_text');
      const proxy = await BearerProxy.start(service.baseUrl, service.fullAccessKey);
      try {
        const keygateGreen = await runLegs(run, legsAgainst('mcp-servers-fixture', 'mcp'), {
          'mcp-servers-fixture': `${proxy.origin}/mcp/servers/fixture`,
          mcp: `${proxy.origin}/mcp`,
        });
        return fixtureGreen && keygateGreen;
      } finally {
        await proxy.close();
      }
    } finally {
      await service.stop();
    }
  } finally {
    await fixture.stop();
  }
});
