import ipaddr from 'ipaddr.js';

/**
 * Addresses as range-table keys: an IPv4 address is one uint32; an IPv6 address is its top 64 bits
 * (a bigint while tables are built, two uint32 words when looked up).
 */

export function ipv4Key(address: ipaddr.IPv4): number {
  const [a, b, c, d] = address.octets as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function ipv6PrefixWords(address: ipaddr.IPv6): [high: number, low: number] {
  const [p0, p1, p2, p3] = address.parts as [number, number, number, number];
  return [((p0 << 16) | p1) >>> 0, ((p2 << 16) | p3) >>> 0];
}

export function ipv6Prefix(address: ipaddr.IPv6): bigint {
  const [high, low] = ipv6PrefixWords(address);
  return (BigInt(high) << 32n) | BigInt(low);
}

export type CidrBounds = { family: 'ipv4' | 'ipv6'; start: bigint; end: bigint };

/** First and last key of a CIDR (`203.0.113.0/24`, `2001:db8::/32`) or of a bare address; throws on anything else. */
export function cidrBounds(text: string): CidrBounds {
  const [address, prefixLength] = text.includes('/') ? ipaddr.parseCIDR(text) : single(ipaddr.parse(text));
  if (address.kind() === 'ipv4') {
    const hostBits = BigInt(32 - prefixLength);
    const start = (BigInt(ipv4Key(address as ipaddr.IPv4)) >> hostBits) << hostBits;
    return { family: 'ipv4', start, end: start + (1n << hostBits) - 1n };
  }
  // Prefixes longer than /64 still cover their whole /64: that is the granularity of the table.
  const hostBits = BigInt(Math.max(0, 64 - prefixLength));
  const start = (ipv6Prefix(address as ipaddr.IPv6) >> hostBits) << hostBits;
  return { family: 'ipv6', start, end: start + (1n << hostBits) - 1n };
}

function single(address: ipaddr.IPv4 | ipaddr.IPv6): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}
