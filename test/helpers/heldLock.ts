import pg from 'pg';
import { eventually } from './eventually.js';

export interface HeldLock {
  /** Resolves once at least `count` sessions wait on a lock (seen from a connection outside the holder's transaction). */
  waiting(count: number): Promise<void>;
  /** Commits the holder's transaction: the waiters go on. */
  release(): Promise<void>;
  /** Closes both connections (in a finally). */
  close(): Promise<void>;
}

/**
 * `lock` (a LOCK TABLE statement) held open by a transaction on a connection of the test's own, on
 * a PostgreSQL server: requests of the app that need it wait, so a second request arrives while the
 * first still runs for sure, not by timing.
 */
export async function holdLock(url: string, lock: string): Promise<HeldLock> {
  const holder = new pg.Client({ connectionString: url });
  const observer = new pg.Client({ connectionString: url });
  const close = async () => {
    await holder.end();
    await observer.end();
  };
  try {
    await holder.connect();
    await observer.connect();
    await holder.query('BEGIN');
    await holder.query(lock);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return {
    waiting: async (count) => {
      await eventually(async () => {
        const { rows } = await observer.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
        return rows.length >= count ? true : undefined;
      }, `${count} requests to wait on a lock`);
    },
    release: async () => {
      await holder.query('COMMIT');
    },
    close,
  };
}
