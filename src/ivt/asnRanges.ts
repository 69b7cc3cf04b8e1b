import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { ipv6Prefix } from './addressKeys.js';
import { allocationGaps, type AnnouncedRow } from './ipv6Allocations.js';
import { forEachRangeRow, type RangeRow } from './rangeRows.js';
import type { RangeTableBuilder } from './rangeTable.js';

/** Where the ranges of one autonomous system go, and under which label. */
export interface AsnTarget {
  label: string;
  ipv4: RangeTableBuilder;
  ipv6: RangeTableBuilder;
  /** A hosting network: the unannounced rest of its IPv6 allocations is its space too (ipv6Allocations.ts). */
  fillsAllocation?: boolean;
}

const require = createRequire(import.meta.url);

/** The package's files the ranges are read from. */
export const asnRangeFiles = {
  ipv4: require.resolve('@ip-location-db/asn/asn-ipv4-num.csv'),
  ipv6: require.resolve('@ip-location-db/asn/asn-ipv6.csv'),
};

/** Past the last IPv6 key: no row of another network follows. */
const NO_ROW_AFTER = 1n << 64n;

/**
 * Adds the ranges of the wanted autonomous systems from @ip-location-db/asn (RouteViews, the five
 * RIRs and DB-IP; CC BY 4.0), plus the IPv6 allocation gaps of hosting networks. One pass over each
 * file (sorted by start; rows never overlap), reading only the ASN field of most rows it skips.
 * `npm run build` keeps what this adds in a file a start reads instead (networkTables.ts).
 */
export function addAsnRanges(targets: ReadonlyMap<number, AsnTarget>): void {
  forEachRow(asnRangeFiles.ipv4, targets, (row, target) => {
    target?.ipv4.addNumbers(Number(row.start()), Number(row.end()), target.label);
  });

  // Each hosting row learns where the nearest row of any other network ends before it and starts
  // after it: how far its allocation's gaps may reach.
  const hostingRows: AnnouncedRow[] = [];
  let previousForeignEnd = '';
  let awaitingForeignStart: AnnouncedRow[] = [];
  forEachRow(asnRangeFiles.ipv6, targets, (row, target) => {
    if (target?.fillsAllocation) {
      const announced: AnnouncedRow = {
        start: ipv6Key(row.start()),
        end: ipv6Key(row.end()),
        label: target.label,
        foreignEndBefore: previousForeignEnd === '' ? -1n : ipv6Key(previousForeignEnd),
        foreignStartAfter: NO_ROW_AFTER,
      };
      target.ipv6.add(announced.start, announced.end, target.label);
      hostingRows.push(announced);
      awaitingForeignStart.push(announced);
      return;
    }
    if (target) target.ipv6.add(ipv6Key(row.start()), ipv6Key(row.end()), target.label);
    if (awaitingForeignStart.length > 0) {
      const foreignStart = ipv6Key(row.start());
      for (const announced of awaitingForeignStart) announced.foreignStartAfter = foreignStart;
      awaitingForeignStart = [];
    }
    previousForeignEnd = row.end();
  });

  const byLabel = new Map([...targets.values()].map((target) => [target.label, target]));
  for (const gap of allocationGaps(hostingRows)) byLabel.get(gap.label)!.ipv6.add(gap.start, gap.end, gap.label);
}

function ipv6Key(address: string): bigint {
  return ipv6Prefix(ipaddr.IPv6.parse(address));
}

/** Calls `visit` for every row, with its target (undefined for a network nobody asked for). */
function forEachRow(file: string, targets: ReadonlyMap<number, AsnTarget>, visit: (row: RangeRow, target: AsnTarget | undefined) => void): void {
  forEachRangeRow(file, (row) => visit(row, targets.get(Number(row.third()))));
}
