import { BearerProxy } from './bearer-proxy';
import { conformanceMain, expectedFailures, NO_EXPECTED_FAILURES, runTarget } from './conformance-run';
import { FixtureUpstream } from './fixture-upstream';
import { KeygateUnderTest } from './keygate-under-test';

/**
 * npm run conformance [-- --verbose]: the official MCP conformance suite's
 * server scenarios against the compiled service on a throwaway PostgreSQL,
 * through a loopback proxy that adds a full-access key (the suite sends no
 * credentials). The fixture upstream runs beside it, registered for the key's
 * user as the MCP server `fixture`. Three targets: the fixture itself with no
 * expected failures (a few seconds), so that a fixture that lost something
 * cannot hide behind keygate's expected failures; /mcp/servers/fixture, the
 * fixture through keygate under its own names, also with no expected
 * failures (every scenario passes through keygate); and /mcp,
 * where the fixture's names are namespaced (`fixture__<tool>`), expected to
 * fail what a namespaced multi-upstream endpoint cannot pass
 * (expected-failures.yml). Exits 1 when a scenario fails that the target's
 * expected-failures file does not list, or passes although it does.
 */
conformanceMain(async (run) => {
  const fixture = await FixtureUpstream.start();
  try {
    const fixtureGreen = await runTarget(run, { name: 'fixture', url: fixture.url, expectedFailuresFile: NO_EXPECTED_FAILURES });
    // The fixture listens on loopback, which upstreams may only be when allowed.
    const service = await KeygateUnderTest.start(run.work, { MCP_UPSTREAM_ALLOWLIST: '127.0.0.1' });
    try {
      await service.registerUpstream('fixture', fixture.url, 'test_simple_text');
      const proxy = await BearerProxy.start(service.baseUrl, service.fullAccessKey);
      try {
        const virtualGreen = await runTarget(run, {
          name: 'mcp-servers-fixture', url: `${proxy.origin}/mcp/servers/fixture`, expectedFailuresFile: NO_EXPECTED_FAILURES,
        });
        const mcpGreen = await runTarget(run, { name: 'mcp', url: `${proxy.origin}/mcp`, expectedFailuresFile: expectedFailures('expected-failures.yml') });
        return fixtureGreen && virtualGreen && mcpGreen;
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
