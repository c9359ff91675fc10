import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { UpstreamRefusal } from '../../../application/ports/upstream-refusal';
import { refusedRange } from './public-address';

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true });

/**
 * Decides where an upstream connection goes (SSRF): `pin` resolves the host
 * once, refuses it when any of its addresses is not public (public-address.ts)
 * unless MCP_UPSTREAM_ALLOWLIST admits it, and returns the address to connect
 * to. The connection uses that address (pinned-agent.ts), so a DNS answer that
 * changes after the check (rebinding) changes nothing.
 */
export class UpstreamAddressGuard {
  private readonly hosts = new Set<string>();
  private readonly networks: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  /** `allowlist`: host names, addresses or CIDRs admitted although not public. */
  constructor(
    allowlist: readonly string[],
    private readonly resolve: Resolve = systemResolve,
  ) {
    for (const raw of allowlist) {
      const entry = raw.replace(/^\[|\]$/g, '').toLowerCase();
      if (ipaddr.isValidCIDR(entry)) this.networks.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.isValid(entry)) this.networks.push(single(ipaddr.parse(entry)));
      else this.hosts.add(entry);
    }
  }

  /** The address to connect to for `hostname` (a name or an address, without brackets); throws UpstreamRefusal. */
  async pin(hostname: string): Promise<string> {
    const host = hostname.toLowerCase();
    const family = isIP(host);
    const addresses = family !== 0 ? [{ address: host, family }] : await this.resolve(host);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    if (!this.hosts.has(host)) {
      for (const { address } of addresses) {
        const why = refusedRange(address);
        if (why !== null && !this.admits(address)) {
          throw UpstreamRefusal.address(`${host} resolves to ${address}, ${why}; MCP_UPSTREAM_ALLOWLIST can admit it`);
        }
      }
    }
    // IPv4 first: an IPv6 route is the one more often missing, and only one address is tried.
    return (addresses.find((a) => a.family === 4) ?? addresses[0]).address;
  }

  private admits(address: string): boolean {
    const ip = ipaddr.process(address); // ::ffff:a.b.c.d is matched as a.b.c.d
    return this.networks.some(([network, bits]) => ip.kind() === network.kind() && ip.match(network, bits));
  }
}

function single(ip: ipaddr.IPv4 | ipaddr.IPv6): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}
