import { fieldText, readDataRow } from '../store/dataRows.js';
import { lineItemVectorInto, type SemanticModel } from '../semantic/semanticModel.js';
import { CREATIVE_FIELDS, semanticTargetings } from './catalogQueries.js';
import { hostOf } from './destinationHost.js';

const TITLE = CREATIVE_FIELDS.indexOf('title');
const BODY = CREATIVE_FIELDS.indexOf('body');
const DESTINATION_URL = CREATIVE_FIELDS.indexOf('destination_url');

/** A full read's opted-in line items' vectors, side by side in shared memory. */
export interface ReadVectors {
  /** Per vector, its line item's row (as lineItemRowsOf orders them); -1 where the line item has none (no known word). */
  rows: Int32Array;
  /** Vector i at i x dimensions, in a SharedArrayBuffer: a worker thread that trains clusters reads them where they are. */
  vectors: Float32Array;
}

/**
 * The vectors being made, in shared memory: ReadVectors (rows first holding every opted-in line
 * item's row) and `next`, the next one to make, which each thread that makes them claims in turn
 * (makeVectors).
 */
export interface VectorsUnderWay extends ReadVectors {
  next: Int32Array;
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
    if ((targeting as { semantic?: { enabled?: unknown } } | null)?.semantic?.enabled === true) optedIn.push({ row, keywords: includeKeywords(targeting) });
  }
  return optedIn;
}

/** A line item's include keywords, as the build reads them from its targeting (a list of another shape, which the build refuses, as none). */
export function includeKeywords(targeting: unknown): string[] {
  const include = (targeting as { keywords?: { include?: unknown } } | null)?.keywords?.include;
  return Array.isArray(include) ? (include as string[]) : [];
}

/**
 * Makes the vectors of a full read's opted-in line items not yet claimed, one claim at a time,
 * until none is left, as buildAdIndex makes them (semanticTarget's lineItemVector: the include
 * keywords, `keywordsOf` the i-th's, and the titles and bodies of the creatives CreativeGroup.read
 * serves, the group's rows whose destination is a URL), without building an entry. A first start
 * runs this in a worker thread (fullReadAside.ts) while the main thread decodes the rows and builds
 * the entries, then on the main thread too for what is left: both make the same vectors, each its
 * own. `ranges` are the read's creativeRanges. A line item the build leaves out (bad targeting, no
 * creative) may get a vector it never reads.
 */
export function makeVectors(underWay: VectorsUnderWay, keywordsOf: (i: number) => string[], creativeRows: Buffer, ranges: ArrayLike<number>, model: SemanticModel): void {
  const { rows, vectors, next } = underWay;
  const { dimensions } = model;
  let rangeOfRow: Map<number, number> | undefined;
  const bounds = new Int32Array(CREATIVE_FIELDS.length * 2);
  for (let i = Atomics.add(next, 0, 1); i < rows.length; i = Atomics.add(next, 0, 1)) {
    if (rangeOfRow === undefined) {
      rangeOfRow = new Map<number, number>();
      for (let at = 0; at < ranges.length; at += 3) rangeOfRow.set(ranges[at]!, at);
    }
    const creatives: Array<{ title: string; body: string }> = [];
    const range = rangeOfRow.get(rows[i]!);
    if (range !== undefined) {
      for (let at = ranges[range + 1]!; at < ranges[range + 2]!; ) {
        at = readDataRow(creativeRows, at, bounds);
        if (hostOf(fieldText(creativeRows, bounds, DESTINATION_URL)!) !== undefined) creatives.push({ title: fieldText(creativeRows, bounds, TITLE)!, body: fieldText(creativeRows, bounds, BODY)! });
      }
    }
    if (!lineItemVectorInto(model, keywordsOf(i), creatives, vectors.subarray(i * dimensions, (i + 1) * dimensions))) rows[i] = -1;
  }
}

/** Shared memory for the vectors of these opted-in line items' rows, none claimed yet. */
export function vectorsUnderWay(rows: Int32Array, dimensions: number): VectorsUnderWay {
  const vectors = new Float32Array(new SharedArrayBuffer(rows.length * dimensions * 4));
  return { rows, vectors, next: new Int32Array(new SharedArrayBuffer(4)) };
}

/** Opted-in line items' rows in shared memory (VectorsUnderWay's rows). */
export function sharedRows(optedIn: OptedIn[]): Int32Array {
  const rows = new Int32Array(new SharedArrayBuffer(optedIn.length * 4));
  optedIn.forEach(({ row }, i) => (rows[i] = row));
  return rows;
}

/** The vectors by line item row (of `lineItems` rows), as views of the shared buffer (undefined where a row has none). */
export function vectorsByRow({ rows, vectors }: ReadVectors, lineItems: number, dimensions: number): Array<Float32Array | undefined> {
  const byRow = new Array<Float32Array | undefined>(lineItems).fill(undefined);
  rows.forEach((row, i) => {
    if (row >= 0) byRow[row] = vectors.subarray(i * dimensions, (i + 1) * dimensions);
  });
  return byRow;
}
