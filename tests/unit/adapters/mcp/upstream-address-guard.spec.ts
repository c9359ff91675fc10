import { UpstreamRefusal } from '../../../../src/application/ports/upstream-refusal';
import { Resolve, UpstreamAddressGuard } from '../../../../src/adapters/mcp/upstream/upstream-address-guard';

/** A DNS in memory: names to addresses. */
const dns =
  (names: Record<string, string[]>): Resolve =>
  async (hostname) => {
    const addresses = names[hostname];
    if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

/** The host as undici hands it to the connector: the URL's, without brackets. */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');
const refused = (guard: UpstreamAddressGuard, url: string) =>
  guard.pin(hostOf(url)).then(
    () => false,
    (error: unknown) => error instanceof UpstreamRefusal,
  );

describe('UpstreamAddressGuard', () => {
  const guard = new UpstreamAddressGuard([], dns({}));

  it.each([
    ['loopback', 'http://127.0.0.1:9/mcp'],
    ['loopback, short form', 'http://127.1/'],
    ['private 10/8', 'http://10.1.2.3/'],
    ['private 172.16/12', 'http://172.20.0.1/'],
    ['private 192.168/16', 'http://192.168.1.1/'],
    ['link-local', 'http://169.254.169.254/latest'],
    ['0.0.0.0/8', 'http://0.0.0.0/'],
    ['0.0.0.0/8', 'http://0.1.2.3/'],
    ['CGNAT 100.64/10', 'http://100.64.0.1/'],
    ['CGNAT 100.64/10', 'http://100.127.255.254/'],
    ['benchmark 198.18/15', 'http://198.18.0.1/'],
    ['benchmark 198.18/15', 'http://198.19.255.255/'],
    ['multicast', 'http://224.0.0.1/'],
    ['broadcast', 'http://255.255.255.255/'],
    ['reserved 240/4', 'http://240.0.0.1/'],
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv6 unspecified', 'http://[::]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['unique-local fc00::/7', 'http://[fc00::1]/'],
    ['unique-local fd00::/8', 'http://[fd12:3456::1]/'],
    ['IPv6 multicast', 'http://[ff02::1]/'],
    ['NAT64 of 127.0.0.1', 'http://[64:ff9b::7f00:1]/'],
    ['NAT64 of 10.0.0.1', 'http://[64:ff9b::10.0.0.1]/'],
    ['local-use NAT64', 'http://[64:ff9b:1::808:808]/'],
    ['IPv4-compatible 127.0.0.1', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible 169.254.169.254', 'http://[::a9fe:a9fe]/'],
    ['IPv4-mapped 127.0.0.1', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped 192.168.0.1', 'http://[::ffff:c0a8:1]/'],
    ['IPv4-translated 127.0.0.1', 'http://[::ffff:0:7f00:1]/'],
    ['6to4 of 127.0.0.1', 'http://[2002:7f00:1::]/'],
    ['6to4 of 169.254.169.254', 'http://[2002:a9fe:a9fe::1]/'],
    ['Teredo, client 127.0.0.1', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
    ['Teredo, server 10.0.0.1', 'http://[2001:0:a00:1::1]/'],
  ])('refuses %s (%s)', async (_why, url) => {
    expect(await refused(guard, url)).toBe(true);
  });

  it.each([
    'http://93.184.216.34/',
    'http://8.8.8.8/',
    'http://[2606:4700::1]/',
    'http://[64:ff9b::808:808]/',
    'http://[2002:808:808::]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/',
  ])('admits the public address %s', async (url) => {
    expect(await refused(guard, url)).toBe(false);
  });

  it('refuses a name when any address it resolves to is refused, saying only "upstream address not allowed"', async () => {
    const named = new UpstreamAddressGuard(
      [],
      dns({ 'mixed.example': ['93.184.216.34', '10.0.0.7'], 'nat64.example': ['64:ff9b::a9fe:a9fe'] }),
    );
    const error = await named.pin('mixed.example').catch((e: UpstreamRefusal) => e);
    expect(error).toBeInstanceOf(UpstreamRefusal);
    expect((error as UpstreamRefusal).message).toBe('upstream address not allowed');
    expect((error as UpstreamRefusal).detail).toContain('10.0.0.7');
    expect(await refused(named, 'http://nat64.example/')).toBe(true);
  });

  it('returns the checked address to connect to, IPv4 first, resolving once', async () => {
    let lookups = 0;
    const named = new UpstreamAddressGuard([], async () => {
      lookups += 1;
      return [
        { address: '2606:4700::1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ];
    });
    expect(await named.pin('public.example')).toBe('93.184.216.34');
    expect(lookups).toBe(1);
    expect(await named.pin('2606:4700::1')).toBe('2606:4700::1');
    expect(lookups).toBe(1);
  });

  it('admits what MCP_UPSTREAM_ALLOWLIST names: CIDRs, addresses and host names', async () => {
    const allowing = new UpstreamAddressGuard(
      ['10.0.0.0/8', '192.168.1.5', 'localhost', 'fd00::/8', '[::1]'],
      dns({ localhost: ['127.0.0.1'] }),
    );
    expect(await refused(allowing, 'http://10.9.9.9/')).toBe(false);
    expect(await refused(allowing, 'http://[::ffff:10.9.9.9]/')).toBe(false);
    expect(await refused(allowing, 'http://192.168.1.5/')).toBe(false);
    expect(await refused(allowing, 'http://192.168.1.6/')).toBe(true);
    expect(await refused(allowing, 'http://localhost:1234/')).toBe(false);
    expect(await allowing.pin('localhost')).toBe('127.0.0.1');
    expect(await refused(allowing, 'http://127.0.0.1/')).toBe(true);
    expect(await refused(allowing, 'http://[fd00::1]/')).toBe(false);
    expect(await refused(allowing, 'http://[::1]/')).toBe(false);
    expect(await refused(allowing, 'http://[64:ff9b::a00:1]/')).toBe(true); // NAT64 of an admitted 10.0.0.1 is another host
  });
});
