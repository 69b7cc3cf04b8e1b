import ipaddr from 'ipaddr.js';

/** Whether the hop at `address` is a proxy whose X-Forwarded-For entry is believed (fastify's trustProxy function). */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** The names fastify's proxy-addr accepts in a trust list, with the same ranges. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  loopback: ['127.0.0.1/8', '::1/128'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Verdicts kept per trust function; the cache starts over when it is full, so memory stays bounded. */
const CACHED_VERDICTS = 1024;
/** The longest address text worth keeping a verdict for (an IPv4-mapped IPv6 address with a zone); longer text is judged each time. */
const MAX_CACHED_ADDRESS = 64;

type Subnet = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * The trust function fastify would compile from TRUST_PROXY's list of addresses, CIDRs and named
 * ranges (the rules of @fastify/proxy-addr 5.1.3's compile, IPv4-mapped and zone handling
 * included), with each address's verdict remembered. fastify asks it on every request, for the
 * socket's address (the load balancer: the same few addresses all day) and for every forwarded
 * hop but the last; proxy-addr parses the address with ipaddr.js each time, 3.5% of a pixel's CPU.
 * One cache per function, so apps built in one process with different lists never share verdicts.
 * Throws on an entry that is not an address or CIDR, as fastify did.
 */
export function cachedProxyTrust(list: readonly string[]): ProxyTrust {
  const subnets = list.flatMap((entry) => (Object.hasOwn(NAMED_RANGES, entry) ? NAMED_RANGES[entry]! : [entry])).map(parseSubnet);
  const verdicts = new Map<string, boolean>();
  return (address) => {
    // A closed socket's address is undefined: not a proxy, as proxy-addr answers (reading a length threw).
    if (typeof address !== 'string') return false;
    let trusted = verdicts.get(address);
    if (trusted !== undefined) return trusted;
    trusted = trusts(subnets, address);
    if (address.length <= MAX_CACHED_ADDRESS) {
      if (verdicts.size >= CACHED_VERDICTS) verdicts.clear();
      verdicts.set(address, trusted);
    }
    return trusted;
  };
}

/** Whether a TRUST_PROXY list may hold `entry`: a named range, an address, a CIDR or an IPv4 address/netmask. */
export function isTrustListEntry(entry: string): boolean {
  if (Object.hasOwn(NAMED_RANGES, entry)) return true;
  try {
    parseSubnet(entry);
    return true;
  } catch {
    return false;
  }
}

function parseSubnet(note: string): Subnet {
  const slash = note.lastIndexOf('/');
  const text = slash === -1 ? note : note.slice(0, slash);
  if (!ipaddr.isValid(text)) throw new TypeError(`invalid IP address: ${text}`);
  let ip = ipaddr.parse(text);
  if (slash === -1 && ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const max = ip.kind() === 'ipv6' ? 128 : 32;
  const range = slash === -1 ? max : prefixLength(ip, note.slice(slash + 1));
  if (range === undefined || range <= 0 || range > max) throw new TypeError(`invalid range on address: ${note}`);
  return [ip, range];
}

/** `/24` or, for IPv4, a netmask (`/255.255.255.0`). */
function prefixLength(ip: ipaddr.IPv4 | ipaddr.IPv6, range: string): number | undefined {
  if (/^\d+$/.test(range)) return Number.parseInt(range, 10);
  if (ip.kind() !== 'ipv4' || !ipaddr.isValid(range)) return undefined;
  const mask = ipaddr.parse(range);
  return mask.kind() === 'ipv4' ? (mask.prefixLengthFromSubnetMask() ?? undefined) : undefined;
}

function trusts(subnets: readonly Subnet[], address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  // An IPv4-mapped address is judged as the IPv4 address it carries, so it cannot slip past an IPv4 rule.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const kind = ip.kind();
  for (const [subnet, range] of subnets) {
    let candidate = ip;
    if (kind !== subnet.kind()) {
      // An IPv6 candidate never matches an IPv4 rule; an IPv4 one matches an IPv6 rule only when
      // that rule is an IPv4-mapped subnet whose prefix covers the ::ffff: marker.
      if (subnet.kind() === 'ipv4') continue;
      if (!(range >= 96 && (subnet as ipaddr.IPv6).isIPv4MappedAddress())) continue;
      candidate = (ip as ipaddr.IPv4).toIPv4MappedAddress();
    } else if (kind === 'ipv6' && (subnet as ipaddr.IPv6).isIPv4MappedAddress()) {
      continue;
    }
    const zone = (subnet as ipaddr.IPv6).zoneId;
    if (zone && zone !== (candidate as ipaddr.IPv6).zoneId) continue;
    if (candidate.match(subnet, range)) return true;
  }
  return false;
}
