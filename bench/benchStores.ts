import { loadConfig } from '../src/config.js';
import { openStores, type Stores } from '../src/runtime.js';

/**
 * The stores of the service under test, opened by the bench itself: to seed them before the service
 * starts and to count what it wrote after it stopped (embedded PGlite and chdb each belong to one
 * process at a time). With DATABASE_URL / CLICKHOUSE_URL in the environment these are the same
 * servers the started service uses, so a scenario runs unchanged against servers.
 */
export async function withStores<T>(dataDir: string, fn: (stores: Stores) => Promise<T>): Promise<T> {
  const stores = await openStores(loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}
