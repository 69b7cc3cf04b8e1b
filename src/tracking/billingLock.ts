import type { Postgres } from '../store/postgres.js';

/**
 * Runs one "which of these serves are already billed? + insert" step (billedOnce.ts) while no other
 * pipeline, of this process or another instance, runs one. Without it two instances that each hold a
 * valid event of the same serve both look (neither finds the other's event, not yet inserted) and
 * both insert it billed. With it the second one looks after the first one's insert has returned, and
 * an insert returns once its rows are in serve_events_v1 (a view, written with the table; on a
 * cluster insert_distributed_sync makes it wait for the shards), so it finds that event and stores
 * its own as `duplicate`.
 */
export type BillingLock = <T>(lookupAndInsert: () => Promise<T>) => Promise<T>;

/** The advisory lock key, next to the migrations' (src/store/migrate.ts): one lock for every instance. */
const BILLING_LOCK_ID = 724_100_003;

/**
 * On a Postgres server, which every instance shares: a transaction-level advisory lock, held while the
 * step runs and released when its transaction ends, or by Postgres itself when the holder's
 * connection goes (a process killed -9 or cut off), so a dead holder never blocks the others. When
 * Postgres cannot be reached the step does not run and the error is thrown (the pipeline keeps the
 * segment spooled and retries it, as when ClickHouse is down). Embedded PGlite belongs to one process
 * (its files are in DATA_DIR, which spool.lock gives to one pipeline), so the process's own lock is
 * enough there; PGlite would also run every other query of the process behind an open transaction.
 */
export function billingLock(db: Postgres): BillingLock {
  return db.kind === 'server' ? advisoryLock(db) : processBillingLock;
}

function advisoryLock(db: Postgres): BillingLock {
  return async (lookupAndInsert) => {
    // The step's own failure (a ClickHouse error) is thrown as it is, not as the transaction's.
    let failure: { error: unknown } | undefined;
    try {
      return await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [BILLING_LOCK_ID]);
        try {
          return await lookupAndInsert();
        } catch (error) {
          failure = { error };
          throw error;
        }
      });
    } catch (error) {
      throw failure ? failure.error : error;
    }
  };
}

let processQueue: Promise<unknown> = Promise.resolve();

/** One step at a time in this process: every pipeline without a shared Postgres server uses this one. */
export const processBillingLock: BillingLock = (lookupAndInsert) => {
  const turn = processQueue.then(lookupAndInsert);
  processQueue = turn.catch(() => undefined);
  return turn;
};
