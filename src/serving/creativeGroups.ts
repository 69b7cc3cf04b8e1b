import { CreativeGroup } from './adIndex.js';
import type { LineItemRow } from './catalogQueries.js';
import { creativeRanges } from './creativeRanges.js';

/**
 * Each line item's creatives in a full read's `creativeRows` (loadCatalog: DataRows in line item
 * order): `groups` by index in `lineItems` (undefined for a line item without a creative whose
 * destination is a URL, which the build then leaves out as 'no_creative'), and `ranges`, [index,
 * first byte, end] of each group flattened (creativeRanges, or fullReadAside's), which the
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
