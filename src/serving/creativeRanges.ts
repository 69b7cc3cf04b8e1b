import { fieldText, readDataRow } from '../store/dataRows.js';
import { CREATIVE_FIELDS } from './catalogQueries.js';
import { isServableDestination } from './destinationHost.js';

const LINE_ITEM_ID = CREATIVE_FIELDS.indexOf('line_item_id');
const DESTINATION_URL = CREATIVE_FIELDS.indexOf('destination_url');

/**
 * Where each line item's creatives are in a full read's `creativeRows` (loadCatalog: DataRows in
 * line item order), found by walking the rows once without parsing them: [index, first byte, end]
 * flattened, `index` the line item's in the read (`indexOf` by id), for each line item with a
 * creative whose destination is a URL. A line item without one has no range (the build leaves it
 * out as 'no_creative'); rows of a line item not in the read are passed over. Needs nothing but
 * bytes and ids, so that a start runs it in a worker thread (creativeRangesWorker.ts).
 */
export function creativeRanges(bytes: Buffer, indexOf: ReadonlyMap<string, number>): number[] {
  const ranges: number[] = [];
  const bounds = new Int32Array(CREATIVE_FIELDS.length * 2);
  // The line item whose rows are being read (they come in line item order): its index (-1 when
  // not in the read), where its line_item_id is in the bytes, its first byte and end, whether one is servable.
  let run = { index: -1, idStart: 0, idEnd: 0, start: 0, end: 0, servable: false };
  const close = () => {
    if (run.servable && run.index >= 0) ranges.push(run.index, run.start, run.end);
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
  return ranges;
}
