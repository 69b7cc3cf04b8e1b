import { loadConfig } from '../src/config.js';
import { openStores } from '../src/runtime.js';
import { buildAdIndex, type IndexRows } from '../src/serving/adIndex.js';
import { loadCatalog } from '../src/serving/catalogQueries.js';
import { groupCreativeRows } from '../src/serving/creativeGroups.js';
import { DeliveryLearning } from '../src/serving/deliveryLearning.js';
import { SpendPacing } from '../src/serving/spendPacing.js';
import { FrequencyCounts } from '../src/serving/frequencyCounts.js';
import { convertToUsd } from '../src/money/usdRates.js';

/**
 * `node --expose-gc indexHeapProbe.js <DATA_DIR>`: builds the serving ad index from that DATA_DIR
 * the way servingRoutes does (loadCatalog, then buildAdIndex with the real pacing and learning
 * state) and prints, as one JSON line, the heap before and after (each after a full GC) and how
 * long each step took. The bench uses it when the service itself cannot start with the catalog.
 */
export interface IndexHeapReport {
  heapBefore: number;
  heapAfter: number;
  loadCatalogMs: number;
  buildMs: number;
  lineItems: number;
}

/** The catalog as the service's full read gives it to the build, without the line items' text kept for the snapshot. */
async function readCatalog(): Promise<IndexRows & { horizon: string }> {
  const { horizon, tokens, placements, lineItems, creatives, creativeRows } = await loadCatalog(stores.db);
  return { horizon, tokens, placements, lineItems, creatives, creativeGroups: groupCreativeRows(creativeRows, lineItems).groups };
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const stores = await openStores(loadConfig({ ...process.env, DATA_DIR: process.argv[2], LOG_LEVEL: 'warn' }));
gc();
const heapBefore = process.memoryUsage().heapUsed;
const loadStarted = performance.now();
let rows: (IndexRows & { horizon: string }) | undefined = await readCatalog();
const loadCatalogMs = performance.now() - loadStarted;
const noEvents = { readBetweenWrites: <T>(read: (unwritten: number) => Promise<T>) => read(0) };
const pacing = new SpendPacing(stores.ch, noEvents);
const frequency = new FrequencyCounts(stores.ch, noEvents);
const learning = new DeliveryLearning(stores.ch);
const buildStarted = performance.now();
const { index } = await buildAdIndex(rows.horizon, rows, {
  spendCounterFor: (id) => pacing.counterFor(id),
  userCountsFor: (id, per) => frequency.countsFor(id, per),
  statsFor: (id) => learning.statsFor(id),
  toUsd: convertToUsd,
});
const buildMs = performance.now() - buildStarted;
rows = undefined;
gc();
const report: IndexHeapReport = {
  heapBefore,
  heapAfter: process.memoryUsage().heapUsed,
  loadCatalogMs,
  buildMs,
  lineItems: index.lineItems.length,
};
console.log(JSON.stringify(report));
await stores.close();
