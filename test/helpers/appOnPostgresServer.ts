import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import type { Stores } from '../../src/runtime.js';
import { migratePostgres } from '../../src/store/migrate.js';
import { openPostgres } from '../../src/store/postgres.js';
import { startPostgresServer, type PostgresServer } from './postgresServer.js';
import { startTestAppOn, testStores, type TestContext } from './testApp.js';

export interface AppOnPostgresServer {
  server: PostgresServer;
  ctx: TestContext;
  close(): Promise<void>;
}

/**
 * The app on a PostgreSQL server of the test's own (migrated) and the suite's ClickHouse: for what
 * only a server shows, another transaction committing between two statements of a request.
 * `dirPrefix` names the app's DATA_DIR under the test root.
 */
export async function startAppOnPostgresServer(dirPrefix: string): Promise<AppOnPostgresServer> {
  const suiteStores = (await testStores()).stores;
  const server = await startPostgresServer();
  const db = await openPostgres({ databaseUrl: server.url, dataDir: '' });
  await migratePostgres(db);
  const stores: Stores = { db, ch: suiteStores.ch, close: () => db.close() };
  const ctx = await startTestAppOn(stores, mkdtempSync(path.join(inject('testRoot'), dirPrefix)));
  return {
    server,
    ctx,
    close: async () => {
      await ctx.close();
      await stores.close();
      server.destroy();
    },
  };
}
