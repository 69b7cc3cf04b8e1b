import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAdIndex } from '../../src/serving/adIndex.js';
import { lineItemIndexes, lineItemRowsOf } from '../../src/serving/catalogQueries.js';
import { groupCreativeRows } from '../../src/serving/creativeGroups.js';
import { creativeRanges } from '../../src/serving/creativeRanges.js';
import { fullReadAside, type FullReadMessage } from '../../src/serving/fullReadAside.js';
import { includeKeywords, makeVectors, vectorsByRow, vectorsUnderWay, type ReadVectors } from '../../src/serving/readVectors.js';
import { convertToUsd } from '../../src/money/usdRates.js';
import type { SemanticModel } from '../../src/semantic/semanticModel.js';
import { encodeDataRows } from '../../src/store/dataRows.js';
import { realSemanticModel } from '../helpers/wordVectors.js';

let model: SemanticModel;
beforeAll(() => {
  model = realSemanticModel();
}, 120_000);

// A line item row of LINE_ITEM_COLUMNS (13 fields), as a full read gives it.
const lineItemRow = (id: string, targeting: object) => [id, `campaign-${id}`, 'Brand', 'CPC', '1', '100', 'USD', null, 'asap', JSON.stringify(targeting), null, null, null];
// A creative row of CREATIVE_FIELDS: id, line_item_id, title, body, cta, destination_url, image_url.
const creativeRow = (id: string, lineItemId: string, title: string, body: string, destination: string) => [id, lineItemId, title, body, 'Go', destination, null];

/** The rows' bytes in shared memory, as embedded PGlite's are when fullReadAside hands them over. */
function shared(bytes: Buffer): Buffer {
  const copy = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(copy);
  return copy;
}

/**
 * The worker's TypeScript source run under tsx in a worker thread, as the built service runs its
 * compiled file (under the sources fullReadAside makes everything on the main thread): its
 * messages, and the vectors made (ReadVectors) when it asked for the model, given the tables and
 * the shared memory (`first`, on the main thread before they are sent, may make some itself).
 */
function workerMessages(
  workerData: unknown,
  tables: () => ReturnType<SemanticModel['tables']>,
  first: (underWay: ReturnType<typeof vectorsUnderWay>) => void = () => undefined,
): Promise<{ messages: FullReadMessage[]; made?: ReadVectors }> {
  const source = new URL('../../src/serving/fullReadWorker.ts', import.meta.url);
  const code = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source.href)}); })`;
  return new Promise((resolve, reject) => {
    const messages: FullReadMessage[] = [];
    let underWay: ReturnType<typeof vectorsUnderWay> | undefined;
    const worker = new Worker(code, { eval: true, workerData });
    worker.on('message', (message: FullReadMessage) => {
      messages.push(message);
      if ('optedIn' in message && message.optedIn.length > 0) {
        underWay = vectorsUnderWay(message.optedIn, model.dimensions);
        first(underWay);
        worker.postMessage({ tables: tables(), vectors: underWay.vectors, next: underWay.next });
      }
      if ('optedIn' in message ? message.optedIn.length === 0 : 'done' in message) {
        resolve({ messages, ...(underWay ? { made: { rows: underWay.rows, vectors: underWay.vectors } } : {}) });
        void worker.terminate();
      }
    });
    worker.once('error', reject);
  });
}

describe('fullReadWorker', () => {
  it("sends the read's creativeRanges, then the opted-in line items' vectors, bit for bit those the build makes on the main thread", async () => {
    const semantic = { enabled: true };
    const lineItems = [
      lineItemRow('a', { keywords: { include: ['running shoes', 'marathon'] }, semantic }),
      // Opted in without keywords: its creatives alone; and one whose only words have no vector.
      lineItemRow('b', { semantic: { enabled: true, min_similarity: 0.5 } }),
      lineItemRow('c', { keywords: { include: ['zzqx'] }, semantic }),
      // Not opted in: no vector, whatever its keywords or creatives.
      lineItemRow('d', { keywords: { include: ['semantic'] } }),
      lineItemRow('e', { keywords: { include: ['tents'] }, semantic: { enabled: false } }),
      // Opted in, its only creative not servable (the build leaves it out: no vector read).
      lineItemRow('f', { semantic }),
      lineItemRow('g', { keywords: { include: ['coffee beans'] }, semantic }),
    ];
    const lineItemRows = shared(encodeDataRows(lineItems));
    const creativeRows = shared(
      encodeDataRows([
        // a's creative whose destination is not a URL is not read into its vector.
        creativeRow('a1', 'a', 'Marathon sale', 'Shoes for long runs', 'https://a.example/'),
        creativeRow('a2', 'a', 'Hidden pasta recipe', 'Never served: not a URL', 'not a url'),
        creativeRow('b1', 'b', 'Hiking boots', 'Waterproof boots for mountain trails', 'https://b.example/'),
        creativeRow('c1', 'c', 'Qqzx', 'Zzqx', 'https://c.example/'),
        creativeRow('d1', 'd', 'Garden tools', 'Spades and rakes', 'https://d.example/'),
        creativeRow('e1', 'e', 'Camping tents', 'Light tents', 'https://e.example/'),
        creativeRow('f1', 'f', 'Skis', 'Not a URL', 'nowhere'),
        creativeRow('g1', 'g', 'Espresso', 'Fresh roasted beans', 'https://g.example/'),
        creativeRow('g2', 'g', 'Grinders', 'Burr grinders for coffee', 'https://g.example/two'),
      ]),
    );

    const { messages, made } = await workerMessages({ creativeRows, lineItemRows }, () => model.tables());
    // The main thread makes them all before the worker has the model: the worker then makes none, and says so.
    const rows = lineItemRowsOf(lineItemRows);
    const { made: madeHere } = await workerMessages({ creativeRows, lineItemRows }, () => model.tables(), (underWay) => {
      makeVectors(underWay, (i) => includeKeywords(rows[underWay.rows[i]!]!.targeting), creativeRows, creativeRanges(creativeRows, lineItemIndexes(lineItemRows)), model);
    });

    const [ranges, optedIn] = messages as [{ ranges: Float64Array }, { optedIn: Int32Array }];
    expect(messages).toHaveLength(3);
    expect(messages[2]).toEqual({ done: true });
    expect(Array.from(ranges.ranges)).toEqual(creativeRanges(creativeRows, lineItemIndexes(lineItemRows)));
    // a, b, c, f and g opted in (shared: c's and f's, without a vector, since written -1).
    expect(Array.from(optedIn.optedIn)).toEqual([0, 1, -1, -1, 6]);
    expect(made!.vectors.buffer).toBeInstanceOf(SharedArrayBuffer);

    // The build's own vectors, made on the main thread from the same rows.
    const { groups } = groupCreativeRows(creativeRows, rows, Array.from(ranges.ranges));
    const { vectors } = await buildAdIndex('v1', { tokens: [], placements: [], lineItems: rows, creatives: [], creativeGroups: groups }, {
      userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
      spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
      statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
      toUsd: convertToUsd,
      semanticModel: model,
    });
    const fromWorker = vectorsByRow(made!, rows.length, model.dimensions);
    const bits = (vector: Float32Array | undefined) => (vector ? [...new Int32Array(Float32Array.from(vector).buffer)] : undefined);
    expect(fromWorker.map(bits)).toEqual(vectors.map(bits));
    expect(vectorsByRow(madeHere!, rows.length, model.dimensions).map(bits)).toEqual(vectors.map(bits));
    // a, b and g have vectors; c's words are unknown, d and e did not opt in, f is not built.
    expect(fromWorker.map((vector) => vector !== undefined)).toEqual([true, true, false, false, false, false, true]);
  }, 60_000);

  it('says no line item opted in, and asks for no model, when none did', async () => {
    const lineItemRows = shared(encodeDataRows([lineItemRow('a', { keywords: { include: ['semantic search'] } }), lineItemRow('b', {})]));
    const creativeRows = shared(encodeDataRows([creativeRow('a1', 'a', 'Title', 'Body', 'https://a.example/')]));

    const { messages } = await workerMessages({ creativeRows, lineItemRows }, () => {
      throw new Error('the model was asked for');
    });

    expect(messages.slice(1)).toEqual([{ optedIn: new Int32Array(0) }]);
  }, 60_000);
});

describe('fullReadAside', () => {
  it('gives the build the vectors it would make itself: the same semantic lists, the same vectors', async () => {
    const semantic = { enabled: true };
    const lineItemRows = shared(
      encodeDataRows([
        lineItemRow('a', { keywords: { include: ['running shoes'] }, semantic }),
        lineItemRow('b', { semantic: { enabled: true, min_similarity: 0.4 } }),
        lineItemRow('c', { keywords: { include: ['tents'] } }),
        lineItemRow('d', { keywords: { include: ['zzqx'] }, semantic }),
      ]),
    );
    const creativeRows = shared(
      encodeDataRows([
        creativeRow('a1', 'a', 'Marathon sale', 'Shoes for long runs', 'https://a.example/'),
        creativeRow('b1', 'b', 'Hiking boots', 'Waterproof boots for mountain trails', 'https://b.example/'),
        creativeRow('c1', 'c', 'Camping tents', 'Light tents', 'https://c.example/'),
        creativeRow('d1', 'd', 'Qqzx', 'Zzqx', 'https://d.example/'),
      ]),
    );
    const deps = {
      userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
      spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
      statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
      toUsd: convertToUsd,
      semanticModel: model,
    };
    const build = async (aside: boolean) => {
      const made = fullReadAside(creativeRows, lineItemRows, Promise.resolve(model));
      const lineItems = lineItemRowsOf(lineItemRows);
      const { groups } = groupCreativeRows(creativeRows, lineItems, await made.ranges);
      const rows = { tokens: [], placements: [], lineItems, creatives: [], creativeGroups: groups };
      return buildAdIndex('v1', aside ? { ...rows, vectorsAside: made.vectors } : rows, deps);
    };

    const [here, aside] = [await build(false), await build(true)];

    const semanticOf = ({ index }: typeof here) =>
      index.lineItems.map((entry) => [entry.id, entry.semantic && { minSimilarity: entry.semantic.minSimilarity, bits: [...new Int32Array(Float32Array.from(entry.semantic.vector).buffer)] }]);
    expect(semanticOf(aside)).toEqual(semanticOf(here));
    expect(aside.index.semantic.certified.map((entry) => entry.id).sort()).toEqual(['a', 'b']);
    expect(aside.vectors.map((vector) => vector !== undefined)).toEqual([true, true, false, false]);
  }, 60_000);
});
