import { afterAll, beforeAll } from 'vitest';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { tempDirectory } from './tempDirectory.js';

/**
 * A test file's own embedded ClickHouse, migrated, in a new DATA_DIR, for the tests that need no
 * Postgres and no app (testApp.ts opens both): opened before the file's tests and closed after
 * them. `ch` is filled in when it has opened, so the tests read it as openMigratedClickHouse's answer.
 */
export function embeddedClickHouseForTest(prefix: string): { ch: ClickHouse; dataDir: string } {
  const dataDir = tempDirectory(prefix);
  const ch = {} as ClickHouse;
  beforeAll(async () => {
    Object.assign(ch, await openMigratedClickHouse(dataDir));
  });
  afterAll(async () => {
    await (ch as Partial<ClickHouse>).close?.();
  });
  return { ch, dataDir };
}
