import { loadConfig } from '../src/config.js';
import { openStores } from '../src/runtime.js';
import { buildAdIndex } from '../src/serving/adIndex.js';
import { loadCatalog } from '../src/serving/catalogQueries.js';
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

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const stores = await openStores(loadConfig({ ...process.env, DATA_DIR: process.argv[2], LOG_LEVEL: 'warn' }));
gc();
const heapBefore = process.memoryUsage().heapUsed;
const loadStarted = performance.now();
let rows: Awaited<ReturnType<typeof loadCatalog>> | undefined = await loadCatalog(stores.db);
const loadCatalogMs = performance.now() - loadStarted;
const pacing = new SpendPacing(stores.ch, () => 0);
const frequency = new FrequencyCounts(stores.ch, () => 0);
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
