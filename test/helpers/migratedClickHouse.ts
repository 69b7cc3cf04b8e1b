import { openClickHouse, type ClickHouse } from '../../src/store/clickhouse.js';
import { migrateClickHouse } from '../../src/store/migrate.js';

/**
 * DATA_DIR's embedded ClickHouse, its schema brought up to date, as the service opens it. Free of
 * vitest, so that the child processes the tests spawn (each owns its directory) open it the same way.
 */
export async function openMigratedClickHouse(dataDir: string): Promise<ClickHouse> {
  const ch = await openClickHouse({ database: 'adsvc', dataDir });
  await migrateClickHouse(ch);
  return ch;
}
