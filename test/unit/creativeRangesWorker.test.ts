import { describe, expect, it } from 'vitest';
import { lineItemIndexes, lineItemRowsOf } from '../../src/serving/catalogQueries.js';
import { creativeRanges } from '../../src/serving/creativeRanges.js';
import { encodeDataRows } from '../../src/store/dataRows.js';
import { firstMessageOfWorkerSource } from '../helpers/workerSource.js';

// A line item row of LINE_ITEM_COLUMNS (13 fields), as a full read gives it.
const lineItemRow = (id: string) => [id, `campaign-${id}`, 'Brand', 'cpm', '2.5', null, null, null, 'even', '{}', null, null, null];
// A creative row of CREATIVE_FIELDS: id, line_item_id, title, body, cta, destination_url, image_url.
const creativeRow = (id: string, lineItemId: string, destination: string) => [id, lineItemId, 'Title', 'Body', 'Go', destination, null];

/** The rows' bytes in shared memory, as embedded PGlite's are when creativeRangesAside hands them over. */
function shared(bytes: Buffer): Buffer {
  const copy = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(copy);
  return copy;
}

describe('creativeRangesWorker', () => {
  it('sends back, moved as a Float64Array, the ranges creativeRanges finds on the same shared rows, indexed as lineItemRowsOf orders them', async () => {
    // b has only a destination that is not a URL, c has no creative, x is not in the read (passed over).
    const lineItemRows = shared(encodeDataRows(['a', 'b', 'c', 'd'].map(lineItemRow)));
    const creativeRows = shared(
      encodeDataRows([
        creativeRow('a1', 'a', 'not a url'),
        creativeRow('a2', 'a', 'https://a.example/landing'),
        creativeRow('b1', 'b', 'not a url either'),
        creativeRow('x1', 'x', 'https://x.example/'),
        creativeRow('d1', 'd', 'https://d.example/'),
        creativeRow('d2', 'd', 'https://d.example/two'),
      ]),
    );
    // No other test runs the worker: under the sources creativeRangesAside walks the rows here.
    const source = new URL('../../src/serving/creativeRangesWorker.ts', import.meta.url);
    const fromWorker = await firstMessageOfWorkerSource<unknown>(source, { creativeRows, lineItemRows });

    expect(fromWorker).toBeInstanceOf(Float64Array);
    const expected = creativeRanges(creativeRows, lineItemIndexes(lineItemRows));
    expect(Array.from(fromWorker as Float64Array)).toEqual(expected);
    // a's two rows (from a1's first byte) and d's two, by their index in lineItemRowsOf's order.
    const lineItems = lineItemRowsOf(lineItemRows);
    const groups = [];
    for (let i = 0; i < expected.length; i += 3) groups.push(lineItems[expected[i]!]!.id);
    expect(groups).toEqual(['a', 'd']);
    expect(expected[1]).toBe(0);
    expect(expected[5]).toBe(creativeRows.length);
  });
});
