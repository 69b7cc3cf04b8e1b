import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { ipv6Prefix } from './addressKeys.js';
import type { RangeTableBuilder } from './rangeTable.js';

/** Where the ranges of one autonomous system go, and under which label. */
export interface AsnTarget {
  label: string;
  ipv4: RangeTableBuilder;
  ipv6: RangeTableBuilder;
}

const require = createRequire(import.meta.url);

/**
 * Adds the ranges of the wanted autonomous systems from @ip-location-db/asn (RouteViews, the five
 * RIRs and DB-IP; CC BY 4.0). One pass over each file, reading only the ASN field of the rows it
 * skips: about 150 ms for the ~500,000 rows at start, so no derived cache file is kept.
 */
export function addAsnRanges(targets: ReadonlyMap<number, AsnTarget>): void {
  // Each row is `start,end,asn,"organisation"`; the organisation may hold commas, the first three fields do not.
  forEachRow(require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'), targets, (target, start, end) => {
    target.ipv4.add(BigInt(start), BigInt(end), target.label);
  });
  forEachRow(require.resolve('@ip-location-db/asn/asn-ipv6.csv'), targets, (target, start, end) => {
    target.ipv6.add(ipv6Prefix(ipaddr.IPv6.parse(start)), ipv6Prefix(ipaddr.IPv6.parse(end)), target.label);
  });
}

function forEachRow(
  file: string,
  targets: ReadonlyMap<number, AsnTarget>,
  add: (target: AsnTarget, start: string, end: string) => void,
): void {
  const text = readFileSync(file, 'latin1');
  let position = 0;
  while (position < text.length) {
    const newline = text.indexOf('\n', position);
    const lineEnd = newline === -1 ? text.length : newline;
    const first = text.indexOf(',', position);
    const second = text.indexOf(',', first + 1);
    if (first !== -1 && second !== -1 && second < lineEnd) {
      const third = text.indexOf(',', second + 1);
      const target = targets.get(Number(text.slice(second + 1, third === -1 || third > lineEnd ? lineEnd : third)));
      if (target) add(target, text.slice(position, first), text.slice(first + 1, second));
    }
    position = lineEnd + 1;
  }
}
