import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Why `address` may not be an upstream, or null when it is public unicast.
 * Only ipaddr.js's `unicast` passes: loopback, private, link-local, unique
 * local, CGNAT (100.64.0.0/10), benchmark (198.18.0.0/15, "reserved"),
 * 0.0.0.0/8, multicast, broadcast and documentation ranges are all refused.
 * IPv6 forms that carry an IPv4 address (mapped, translated, compatible,
 * NAT64, 6to4, Teredo) are judged by that IPv4 address, because the packets
 * end up there: `[64:ff9b::7f00:1]` is 127.0.0.1 behind a NAT64 gateway.
 */
export function refusedRange(address: string): string | null {
  let ip: IPv4 | IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv4') return ipv4Refusal(ip as IPv4);
  const range = (ip as IPv6).range();
  if (range === 'loopback' || range === 'unspecified') return range;
  const embedded = embeddedIpv4(ip as IPv6);
  if (embedded === null) return range === 'unicast' ? null : range;
  if (embedded.carried.length === 0) return embedded.form;
  const refused = embedded.carried.flatMap((v4) => {
    const why = ipv4Refusal(v4);
    return why === null ? [] : [`${v4.toString()} (${why})`];
  });
  return refused.length === 0 ? null : `${embedded.form} of ${refused.join(' and ')}`;
}

function ipv4Refusal(ip: IPv4): string | null {
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

interface Embedding {
  form: string;
  /** Empty: a form refused whatever it carries. */
  carried: IPv4[];
}

/** The IPv4 addresses an IPv6 address carries, by form; null when it carries none. */
function embeddedIpv4(ip: IPv6): Embedding | null {
  const p = ip.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 6)) return { form: 'IPv4-compatible', carried: [v4(p[6], p[7])] };
  if (zeros(0, 5) && p[5] === 0xffff) return { form: 'IPv4-mapped', carried: [v4(p[6], p[7])] };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: 'IPv4-translated', carried: [v4(p[6], p[7])] };
  if (p[0] === 0x64 && p[1] === 0xff9b) {
    // The well-known prefix carries the address in its last 32 bits; the rest of 64:ff9b::/32 (64:ff9b:1::/48) is local-use.
    return zeros(2, 6) ? { form: 'NAT64', carried: [v4(p[6], p[7])] } : { form: 'local-use NAT64', carried: [] };
  }
  if (p[0] === 0x2002) return { form: '6to4', carried: [v4(p[1], p[2])] };
  // Teredo carries its server's address, and the client's with every bit inverted.
  if (p[0] === 0x2001 && p[1] === 0) return { form: 'Teredo', carried: [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)] };
  return null;
}
