/**
 * A process that takes the billing lock the way an instance's pipeline does (billingLock.ts) and
 * keeps it, as if its insert never returned: it says "holding" on stdout, so that a test can
 * kill -9 it while it holds the lock.
 */
import { openPostgres } from '../../src/store/postgres.js';
import { billingLock } from '../../src/tracking/billingLock.js';

const db = await openPostgres({ databaseUrl: process.argv[2]!, dataDir: '' });
await billingLock(db)(() => {
  process.stdout.write('holding\n');
  return new Promise<never>(() => undefined);
});
