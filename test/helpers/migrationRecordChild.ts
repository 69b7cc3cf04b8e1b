/**
 * Opens DATA_DIR's embedded stores without migrating them, as a test's hand on the database:
 * `record postgres|clickhouse NAME` records a migration as applied (what a newer release leaves),
 * `count` prints "events N" (the rows of events_v1). A process of its own: chdb is one per process.
 */
import { openClickHouse } from '../../src/store/clickhouse.js';
import { openPostgres } from '../../src/store/postgres.js';

const [dataDir, command, store, name] = process.argv.slice(2);
const db = await openPostgres({ dataDir: dataDir!, lockWaitMs: 0, queryTimeoutMs: 0 });
const ch = await openClickHouse({ dataDir: dataDir!, database: 'adsvc' });
try {
  if (command === 'record' && store === 'postgres') await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
  else if (command === 'record' && store === 'clickhouse') await ch.client.insert({ table: 'schema_migrations', values: [{ name }], format: 'JSONEachRow' });
  else if (command === 'count') {
    const rows = await (await ch.client.query({ query: 'SELECT count() AS n FROM events_v1', format: 'JSONEachRow' })).json<{ n: string }>();
    process.stdout.write(`events ${Number(rows[0]!.n)}\n`);
  } else throw new Error(`unknown command ${command}`);
} finally {
  await Promise.allSettled([db.close(), ch.close()]);
}
