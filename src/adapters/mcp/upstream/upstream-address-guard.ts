import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local and other non-public ranges an upstream may not resolve to by default. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv6');
}

/**
 * Refuses outbound requests to internal addresses (SSRF), unless the host name
 * or the address is in MCP_UPSTREAM_ALLOWLIST (host names, addresses or CIDRs).
 * The check resolves the name itself; the connection resolves it again, so a
 * DNS answer that changes in between is not caught here.
 */
export class UpstreamAddressGuard {
  private readonly hosts = new Set<string>();
  private readonly allowed = new BlockList();

  constructor(allowlist: readonly string[]) {
    for (const entry of allowlist) {
      const [address, prefix] = entry.split('/');
      const family = isIP(address);
      if (family === 0) this.hosts.add(entry.toLowerCase());
      else if (prefix === undefined) this.allowed.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
      else this.allowed.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  /** Throws an error saying why when the URL may not be contacted. */
  async check(url: URL): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (this.hosts.has(host)) return;
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
    for (const { address, family } of addresses) {
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (INTERNAL.check(address, type) && !this.allowed.check(address, type)) {
        throw new Error(`refused: ${url.host} resolves to ${address}, a loopback, private or link-local address (allow it with MCP_UPSTREAM_ALLOWLIST)`);
      }
    }
  }
}
