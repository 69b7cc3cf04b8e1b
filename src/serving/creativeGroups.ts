import { builtInWorker } from '../builtInWorker.js';
import { CreativeGroup } from './adIndex.js';
import { lineItemIndexes, type LineItemRow } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';

/**
 * Each line item's creatives in a full read's `creativeRows` (loadCatalog: DataRows in line item
 * order): `groups` by index in `lineItems` (undefined for a line item without a creative whose
 * destination is a URL, which the build then leaves out as 'no_creative'), and `ranges`, [index,
 * first byte, end] of each group flattened (creativeRanges, or creativeRangesAside's), which the
 * catalog snapshot's base keeps so that a restart makes the same groups.
 */
export function groupCreativeRows(
  bytes: Buffer,
  lineItems: LineItemRow[],
  ranges: number[] = creativeRanges(bytes, new Map(lineItems.map((row, index) => [row.id, index]))),
): { groups: Array<CreativeGroup | undefined>; ranges: number[] } {
  const groups = new Array<CreativeGroup | undefined>(lineItems.length).fill(undefined);
  for (let i = 0; i < ranges.length; i += 3) {
    const index = ranges[i]!;
    groups[index] = new CreativeGroup(bytes, ranges[i + 1]!, ranges[i + 2]!, lineItems[index]!.brand_name);
  }
  return { groups, ranges };
}

/**
 * The creativeRanges of a full read's rows (its line items still as DataRows: lineItemIndexes), in
 * a worker thread, so that the line items are decoded here meanwhile: the walk was 0.25-0.3 s of a
 * first start at 100,000 line items and 150,000 creatives, after the decoding. The worker reads the
 * rows where they are when they are in shared memory (embedded PGlite's), else a copy. Here when no
 * worker can be started (builtInWorker.ts).
 */
export function creativeRangesAside(creativeRows: Buffer, lineItemRows: Buffer): Promise<number[]> {
  return builtInWorker<Float64Array, number[]>(
    new URL('./creativeRangesWorker.js', import.meta.url),
    { creativeRows, lineItemRows },
    (ranges) => Array.from(ranges),
    () => creativeRanges(creativeRows, lineItemIndexes(lineItemRows)),
  );
}
