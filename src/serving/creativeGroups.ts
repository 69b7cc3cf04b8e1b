import { fieldText, readDataRow } from '../store/dataRows.js';
import { CreativeGroup, isServableDestination } from './adIndex.js';
import { CREATIVE_FIELDS, type LineItemRow } from './catalogQueries.js';

const LINE_ITEM_ID = CREATIVE_FIELDS.indexOf('line_item_id');
const DESTINATION_URL = CREATIVE_FIELDS.indexOf('destination_url');

/**
 * Each line item's creatives in a full read's `creativeRows` (loadCatalog: DataRows in line item
 * order), found by walking the rows once without parsing them: `groups` by index in `lineItems`
 * (undefined for a line item without a creative whose destination is a URL, which the build then
 * leaves out as 'no_creative'), and `ranges`, [index, first byte, end] of each group flattened,
 * which the catalog snapshot's base keeps so that a restart makes the same groups.
 */
export function groupCreativeRows(bytes: Buffer, lineItems: LineItemRow[]): { groups: Array<CreativeGroup | undefined>; ranges: number[] } {
  const indexOf = new Map<string, number>();
  lineItems.forEach((row, index) => indexOf.set(row.id, index));
  const groups = new Array<CreativeGroup | undefined>(lineItems.length).fill(undefined);
  const ranges: number[] = [];
  const bounds = new Int32Array(CREATIVE_FIELDS.length * 2);
  // The line item whose rows are being read (they come in line item order): its index (-1 when
  // not in lineItems), where its line_item_id is in the bytes, its first byte and end, whether one is servable.
  let run = { index: -1, idStart: 0, idEnd: 0, start: 0, end: 0, servable: false };
  const close = () => {
    if (!run.servable || run.index < 0) return;
    groups[run.index] = new CreativeGroup(bytes, run.start, run.end, lineItems[run.index]!.brand_name);
    ranges.push(run.index, run.start, run.end);
  };
  for (let at = 0; at < bytes.length; ) {
    const next = readDataRow(bytes, at, bounds);
    const [idStart, idEnd] = [bounds[LINE_ITEM_ID * 2]!, bounds[LINE_ITEM_ID * 2 + 1]!];
    if (at === 0 || bytes.compare(bytes, run.idStart, run.idEnd, idStart, idEnd) !== 0) {
      close();
      run = { index: indexOf.get(bytes.toString('latin1', idStart, idEnd)) ?? -1, idStart, idEnd, start: at, end: next, servable: false };
    }
    run.end = next;
    if (!run.servable && run.index >= 0) run.servable = isServableDestination(fieldText(bytes, bounds, DESTINATION_URL)!);
    at = next;
  }
  close();
  return { groups, ranges };
}
