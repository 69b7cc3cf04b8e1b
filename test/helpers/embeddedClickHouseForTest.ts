import { afterAll } from 'vitest';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { tempDirectory } from './tempDirectory.js';

/**
 * A test file's own embedded ClickHouse, migrated, in a new DATA_DIR, for the tests that need no
 * Postgres and no app (testApp.ts opens both); closed when the file's tests are done. Awaited at the
 * top of the file: chdb is one per process, and every file runs in a process of its own.
 */
export async function embeddedClickHouseForTest(prefix: string): Promise<{ ch: ClickHouse; dataDir: string }> {
  const dataDir = tempDirectory(prefix);
  const ch = await openMigratedClickHouse(dataDir);
  afterAll(() => ch.close());
  return { ch, dataDir };
}
