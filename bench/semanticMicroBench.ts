import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildAdIndex } from '../src/serving/adIndex.js';
import type { CatalogRows } from '../src/serving/catalogQueries.js';
import { selectAd } from '../src/serving/selectAd.js';
import { convertToUsd } from '../src/money/usdRates.js';
import { packageRoot } from '../src/packageRoot.js';
import { wordsOf } from '../src/serving/contextWords.js';
import { BrandSafety } from '../src/semantic/brandSafety.js';
import { SemanticModel } from '../src/semantic/semanticModel.js';
import { DEFAULT_WORD_VECTORS_PATH, readWordVectors } from '../src/semantic/wordVectorsFile.js';

/** No flight, pacing share or daypart in play: these line items only test matching. */
const ANY_TIME = { nowMs: Date.now(), evenShare: 1 };

/**
 * In-process cost of selectAd with 10,000 line items opted into semantic matching (each built from
 * one of the 30 evaluation line items plus four random words, with a random bid), against the same catalog without
 * semantic matching, over the evaluation conversations; and the recall of the clustered search
 * (semanticMatrix.ts) against comparing every line item, on the same catalog and conversations.
 * Usage: npm run build && node --expose-gc dist/bench/semanticMicroBench.js
 */
const LINE_ITEMS = 10_000;
const ROUNDS = 20;

const folder = path.join(packageRoot, 'bench', 'semantic');
const specs = JSON.parse(readFileSync(path.join(folder, 'lineItems.json'), 'utf8')) as { category: string; keywords: string[]; title: string; body: string }[];
const conversations = readFileSync(path.join(folder, 'conversations.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => line.split(' | '));

const vocabulary = [...new Set(conversations.flatMap(([, query, answer]) => wordsOf(`${query} ${answer}`)).filter((word) => word.length > 3))];

// With --expose-gc the model's memory is weighed after full collections, without the garbage of reading it.
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const inMemory = () => {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const heapBefore = inMemory();
const model = new SemanticModel(readWordVectors(DEFAULT_WORD_VECTORS_PATH)!);
const heapAfter = inMemory();

function catalog(semantic: boolean): CatalogRows {
  const rows: CatalogRows = { tokens: [], placements: [], lineItems: [], creatives: [] };
  for (let i = 0; i < LINE_ITEMS; i++) {
    const spec = specs[i % specs.length]!;
    rows.lineItems.push({
      id: `li-${i}`,
      campaign_id: `c-${i}`,
      brand_name: 'b',
      bid_type: 'CPC',
      bid_value: (0.5 + Math.random()).toFixed(3),
      budget_daily: '100',
      budget_currency: 'USD', budget_lifetime: null, budget_pacing: 'asap', frequency_cap: null, starts_at: null, ends_at: null,
      targeting: { keywords: { include: spec.keywords }, ...(semantic ? { semantic: { enabled: true } } : {}) },
    });
    // Four words drawn from the conversations make each line item's vector its own, as in a real catalog.
    const extra = Array.from({ length: 4 }, () => vocabulary[Math.floor(Math.random() * vocabulary.length)]).join(' ');
    rows.creatives.push({ id: `cr-${i}`, line_item_id: `li-${i}`, title: spec.title, body: `${spec.body} ${extra}`, cta: 'Go', destination_url: 'https://example.com', image_url: null });
  }
  return rows;
}

async function indexOf(rows: CatalogRows, semantic: boolean, clusteredFrom?: number) {
  const { index } = await buildAdIndex('bench', rows, {
    userCountsFor: () => ({ impressions: new Map(), outstanding: new Map() }),
    spendCounterFor: () => ({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0 }),
    statsFor: () => ({ impressions: 0, clicks: 0, conversions: 0 }),
    toUsd: convertToUsd,
    ...(semantic ? { semanticModel: model, brandSafety: new BrandSafety(model) } : {}),
    ...(clusteredFrom !== undefined ? { semanticClusteredFrom: clusteredFrom } : {}),
  });
  return index;
}

const placement = { publisherId: 'p', certified: true };

async function timings(semantic: boolean): Promise<number[]> {
  const index = await indexOf(catalog(semantic), semantic);
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [, query, answer] of conversations) {
      const start = performance.now();
      selectAd(index, 'pl', placement, { ...ANY_TIME, query: query!, response: answer! });
      if (round > 0) samples.push((performance.now() - start) * 1000);
    }
  }
  return samples.sort((a, b) => a - b);
}

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
for (const semantic of [false, true]) {
  const sorted = await timings(semantic);
  console.log(`${semantic ? 'semantic + brand safety' : 'keywords only          '}: selectAd p50 ${at(sorted, 0.5).toFixed(1)} us, p99 ${at(sorted, 0.99).toFixed(1)} us over ${sorted.length} serves, ${LINE_ITEMS} line items`);
}
// Recall: the same catalog searched exactly (every line item compared) and through the clusters.
const rows = catalog(true);
const [exact, clustered] = [await indexOf(rows, true, Infinity), await indexOf(rows, true)];
let sameAd = 0;
let exactBySimilarity = 0;
let keptBySimilarity = 0;
// Precision@1 (right category / ads) and fill (ads / conversations) on the evaluation labels, per search.
const labelled = { exact: { served: 0, right: 0 }, clustered: { served: 0, right: 0 } };
const tally = (which: keyof typeof labelled, label: string, lineItemId: string | undefined) => {
  if (lineItemId === undefined) return;
  labelled[which].served += 1;
  if (specs[Number(lineItemId.slice('li-'.length)) % specs.length]!.category === label) labelled[which].right += 1;
};
for (const [label, query, answer] of conversations) {
  const context = { ...ANY_TIME, query: query!, response: answer! };
  const wanted = selectAd(exact, 'pl', placement, context);
  const found = selectAd(clustered, 'pl', placement, context);
  tally('exact', label!, wanted?.lineItem.id);
  tally('clustered', label!, found?.lineItem.id);
  if (wanted?.lineItem.id === found?.lineItem.id) sameAd += 1;
  if (wanted?.match?.by === 'similarity') {
    exactBySimilarity += 1;
    if (found?.lineItem.id === wanted.lineItem.id) keptBySimilarity += 1;
  }
}
console.log(`clustered search vs every line item compared: same ad (or none) for ${sameAd} of ${conversations.length} conversations; of the ${exactBySimilarity} ads exact search matched by similarity, ${keptBySimilarity} found (recall ${((keptBySimilarity / exactBySimilarity) * 100).toFixed(1)} %)`);
for (const [which, { served, right }] of Object.entries(labelled)) {
  console.log(`${which} search (default min_similarity): precision@1 ${((right / served) * 100).toFixed(1)} % (${right}/${served}), fill ${((served / conversations.length) * 100).toFixed(1)} % on the ${conversations.length} labelled conversations`);
}
console.log(`word vectors in memory: about ${((heapAfter - heapBefore) / 1e6).toFixed(0)} MB${typeof (globalThis as { gc?: unknown }).gc === 'function' ? ' (after full GCs)' : ' (run node with --expose-gc for a figure after full GCs)'}`);
