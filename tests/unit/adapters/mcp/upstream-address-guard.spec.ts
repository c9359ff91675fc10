import { UpstreamAddressGuard } from '../../../../src/adapters/mcp/upstream/upstream-address-guard';

const refused = async (guard: UpstreamAddressGuard, url: string) =>
  guard.check(new URL(url)).then(() => false, (error: Error) => /refused/.test(error.message));

describe('UpstreamAddressGuard', () => {
  it('refuses loopback, private, link-local and unspecified addresses by default', async () => {
    const guard = new UpstreamAddressGuard([]);
    for (const url of ['http://127.0.0.1:9/mcp', 'http://10.1.2.3/', 'http://172.20.0.1/', 'http://192.168.1.1/',
      'http://169.254.169.254/latest', 'http://0.0.0.0/', 'http://[::1]/', 'http://[fe80::1]/', 'http://[fd00::1]/']) {
      expect(await refused(guard, url)).toBe(true);
    }
    expect(await refused(guard, 'http://93.184.216.34/')).toBe(false);
    expect(await refused(guard, 'http://[2606:4700::1]/')).toBe(false);
  });

  it('admits what MCP_UPSTREAM_ALLOWLIST names: CIDRs, addresses and host names', async () => {
    const guard = new UpstreamAddressGuard(['10.0.0.0/8', '192.168.1.5', 'localhost']);
    expect(await refused(guard, 'http://10.9.9.9/')).toBe(false);
    expect(await refused(guard, 'http://192.168.1.5/')).toBe(false);
    expect(await refused(guard, 'http://192.168.1.6/')).toBe(true);
    expect(await refused(guard, 'http://localhost:1234/')).toBe(false);
    expect(await refused(guard, 'http://127.0.0.1/')).toBe(true);
  });
});
