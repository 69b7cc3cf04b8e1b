import { fieldText, readDataRow } from '../store/dataRows.js';
import { lineItemVectorInto, type SemanticModel } from '../semantic/semanticModel.js';
import { CREATIVE_FIELDS, semanticTargetings } from './catalogQueries.js';
import { hostOf } from './destinationHost.js';

const TITLE = CREATIVE_FIELDS.indexOf('title');
const BODY = CREATIVE_FIELDS.indexOf('body');
const DESTINATION_URL = CREATIVE_FIELDS.indexOf('destination_url');

/** A full read's opted-in line items' vectors (lineItemVectorsOf), side by side in shared memory. */
export interface ReadVectors {
  /** Per vector, its line item's row (as lineItemRowsOf orders them); -1 where the line item has none (no known word). */
  rows: Int32Array;
  /** Vector i at i x dimensions, in a SharedArrayBuffer: a worker thread that trains clusters reads them where they are. */
  vectors: Float32Array;
}

/** A full read's line item that opted into semantic matching: its row (as lineItemRowsOf orders them) and its include keywords. */
export interface OptedIn {
  row: number;
  keywords: string[];
}

/** The opted-in line items of a full read's line item rows (DataRows of LINE_ITEM_COLUMNS). */
export function optedInLineItems(lineItemRows: Buffer): OptedIn[] {
  const optedIn: OptedIn[] = [];
  for (const { row, targeting } of semanticTargetings(lineItemRows)) {
    const { semantic, keywords } = (targeting ?? {}) as { semantic?: { enabled?: unknown }; keywords?: { include?: unknown } };
    // Targeting of another shape is refused by the build (storedTargeting): no keyword list is made up for it.
    if (semantic?.enabled === true) optedIn.push({ row, keywords: Array.isArray(keywords?.include) ? (keywords.include as string[]) : [] });
  }
  return optedIn;
}

/**
 * The vectors of a full read's opted-in line items, made from its rows as buildAdIndex makes them
 * (semanticTarget's lineItemVector: the include keywords, and the titles and bodies of the
 * creatives CreativeGroup.read serves, the group's rows whose destination is a URL), without
 * building an entry: a first start makes them in a worker thread (fullReadAside.ts) while the main
 * thread decodes the rows and builds the index. `ranges` are the read's creativeRanges. A line
 * item the build leaves out (bad targeting, no creative) may get a vector it never reads.
 */
export function lineItemVectorsOf(optedIn: OptedIn[], creativeRows: Buffer, ranges: ArrayLike<number>, model: SemanticModel): ReadVectors {
  const rangeOfRow = new Map<number, number>();
  for (let i = 0; i < ranges.length; i += 3) rangeOfRow.set(ranges[i]!, i);
  const { dimensions } = model;
  const rows = new Int32Array(optedIn.length);
  const vectors = new Float32Array(new SharedArrayBuffer(optedIn.length * dimensions * 4));
  const bounds = new Int32Array(CREATIVE_FIELDS.length * 2);
  optedIn.forEach(({ row, keywords }, i) => {
    const creatives: Array<{ title: string; body: string }> = [];
    const range = rangeOfRow.get(row);
    if (range !== undefined) {
      for (let at = ranges[range + 1]!; at < ranges[range + 2]!; ) {
        at = readDataRow(creativeRows, at, bounds);
        if (hostOf(fieldText(creativeRows, bounds, DESTINATION_URL)!) !== undefined) creatives.push({ title: fieldText(creativeRows, bounds, TITLE)!, body: fieldText(creativeRows, bounds, BODY)! });
      }
    }
    const vector = vectors.subarray(i * dimensions, (i + 1) * dimensions);
    rows[i] = lineItemVectorInto(model, keywords, creatives, vector) ? row : -1;
  });
  return { rows, vectors };
}

/** The vectors by line item row (of `lineItems` rows), as views of the shared buffer (undefined where a row has none). */
export function vectorsByRow({ rows, vectors }: ReadVectors, lineItems: number, dimensions: number): Array<Float32Array | undefined> {
  const byRow = new Array<Float32Array | undefined>(lineItems).fill(undefined);
  rows.forEach((row, i) => {
    if (row >= 0) byRow[row] = vectors.subarray(i * dimensions, (i + 1) * dimensions);
  });
  return byRow;
}
