import { BearerProxy } from './bearer-proxy';
import { conformanceMain, expectedFailures, runTarget } from './conformance-run';
import { FixtureUpstream } from './fixture-upstream';
import { KeygateUnderTest } from './keygate-under-test';

/**
 * npm run conformance [-- --verbose]: the official MCP conformance suite's
 * server scenarios against the compiled service on a throwaway PostgreSQL,
 * through a loopback proxy that adds a full-access key (the suite sends no
 * credentials). The fixture upstream runs beside it, registered for the key's
 * user as the MCP server `fixture`, so its tools are on /mcp as
 * `fixture__<tool>`. Exits 1 when a scenario fails that expected-failures.yml
 * does not list, or passes although it does.
 */
conformanceMain(async (run) => {
  const fixture = await FixtureUpstream.start();
  try {
    // The fixture listens on loopback, which upstreams may only be when allowed.
    const service = await KeygateUnderTest.start(run.work, { MCP_UPSTREAM_ALLOWLIST: '127.0.0.1' });
    try {
      await service.registerUpstream('fixture', fixture.url, 'test_simple_text');
      const proxy = await BearerProxy.start(service.baseUrl, service.fullAccessKey);
      try {
        return await runTarget(run, { name: 'mcp', url: `${proxy.origin}/mcp`, expectedFailuresFile: expectedFailures('expected-failures.yml') });
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
