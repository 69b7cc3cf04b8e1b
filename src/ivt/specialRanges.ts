import ipaddr from 'ipaddr.js';
import { cidrBounds } from './addressKeys.js';
import { RangeTable, RangeTableBuilder } from './rangeTable.js';

export interface SpecialRangeTables {
  ipv4: RangeTable;
  ipv6: RangeTable;
}

type SpecialRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * ipaddr.js's own list of special-purpose ranges (everything its range() does not call unicast:
 * private, loopback, link-local, carrier-grade NAT, documentation, multicast, 6to4, Teredo...) as
 * range tables, for the classifier's fast path; ranges longer than /64 cover their /64, the IPv6
 * tables' granularity (the fast path leaves ::/64 to ipaddr.js anyway).
 */
export function specialRangeTables(): SpecialRangeTables {
  const ipv4 = new RangeTableBuilder(1);
  const ipv6 = new RangeTableBuilder(2);
  const prototypes = [ipaddr.IPv4.prototype, ipaddr.IPv6.prototype] as unknown as Array<{ SpecialRanges: Record<string, SpecialRange | SpecialRange[]> }>;
  for (const { SpecialRanges } of prototypes) {
    for (const [name, ranges] of Object.entries(SpecialRanges)) {
      for (const [address, length] of (Array.isArray(ranges[0]) ? ranges : [ranges]) as SpecialRange[]) {
        const bounds = cidrBounds(`${address.toString()}/${length}`);
        (bounds.family === 'ipv4' ? ipv4 : ipv6).add(bounds.start, bounds.end, name);
      }
    }
  }
  return { ipv4: ipv4.build(), ipv6: ipv6.build() };
}
