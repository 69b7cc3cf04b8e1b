/**
 * Hosting networks announce pieces of their IPv6 allocations, not the whole: DigitalOcean's
 * 2604:a880::/32 shows up as a handful of routes while droplets use /64s all over it. A hosting
 * network's allocation is the shortest prefix (not shorter than MIN_ALLOCATION_LENGTH) around one of
 * its rows in which no other network has any row: nobody else announces or registers anything
 * there, so its unannounced rest is the hosting network's too. Keys are the top 64 bits of IPv6.
 */

/** A row of a hosting network, with the nearest rows of other networks around it. */
export interface AnnouncedRow {
  start: bigint;
  end: bigint;
  label: string;
  /** End of the last row of another network before this one; -1 when there is none. */
  foreignEndBefore: bigint;
  /** Start of the first row of another network after this one; 2^64 when there is none. */
  foreignStartAfter: bigint;
}

export interface AllocationGap {
  start: bigint;
  end: bigint;
  label: string;
}

/**
 * /29 is the smallest allocation RIPE NCC hands an LIR, ARIN's /32 and APNIC's /32 sit inside a /29
 * of the same holder more often than not, and the big clouds hold /24 to /29 blocks. Shorter prefixes
 * would reach across holders that merely do not announce (yet).
 */
const MIN_ALLOCATION_LENGTH = 29;

/**
 * The parts of hosting networks' allocations that no row covers, each labelled like the row before
 * it (or, at the start of an allocation, the row after). `rows` are in address order.
 */
export function allocationGaps(rows: readonly AnnouncedRow[]): AllocationGap[] {
  const gaps: AllocationGap[] = [];
  let index = 0;
  while (index < rows.length) {
    const block = allocationOf(rows[index]!);
    if (!block) {
      index += 1;
      continue;
    }
    // Every hosting row inside the block; a later row may widen it to an enclosing allocation.
    let last = index;
    while (last + 1 < rows.length && rows[last + 1]!.start <= block.end) {
      last += 1;
      const wider = allocationOf(rows[last]!);
      if (wider && wider.start < block.start) break;
      if (wider && wider.end > block.end) block.end = wider.end;
    }
    let cursor = block.start;
    let label = rows[index]!.label;
    for (let inside = index; inside <= last; inside++) {
      const row = rows[inside]!;
      if (row.start > cursor) gaps.push({ start: cursor, end: row.start - 1n, label: inside === index ? row.label : label });
      if (row.end + 1n > cursor) cursor = row.end + 1n;
      label = row.label;
    }
    if (cursor <= block.end) gaps.push({ start: cursor, end: block.end, label });
    index = last + 1;
  }
  return gaps;
}

/** The shortest prefix around the row that holds no other network's row; undefined when even the row's own /64 does. */
function allocationOf(row: AnnouncedRow): { start: bigint; end: bigint } | undefined {
  for (let length = MIN_ALLOCATION_LENGTH; length <= 64; length++) {
    const hostBits = BigInt(64 - length);
    const start = (row.start >> hostBits) << hostBits;
    const end = start + (1n << hostBits) - 1n;
    if (row.end > end) continue;
    if (start > row.foreignEndBefore && end < row.foreignStartAfter) return { start, end };
  }
  return undefined;
}
