/**
 * A process that closes DATA_DIR's embedded ClickHouse while a query (2 s of sleeps) runs in it,
 * asks another query once the close has begun, and exits as soon as the close has returned, as a
 * failed start does: it prints what had become of each query by then.
 */
import { openClickHouse } from '../../src/store/clickhouse.js';

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error as Error).message,
  );
const ch = await openClickHouse({ database: 'adsvc', dataDir: process.argv[2]! });
let running = 'still running';
void outcome(ch.client.query({ query: 'SELECT sum(sleepEachRow(0.5)) FROM numbers(4) SETTINGS max_block_size = 1' })).then((what) => (running = what));
// Past the query's start in the engine's thread.
await new Promise((resolve) => setTimeout(resolve, 300));
const closed = ch.close();
const afterClose = outcome(ch.client.query({ query: 'SELECT 1' }));
await closed;
// A turn for the outcome of a query that has ended to be seen; then the exit, under whatever still runs.
await new Promise((resolve) => setImmediate(resolve));
console.log(JSON.stringify({ running, afterClose: await afterClose }));
process.exit(0);
