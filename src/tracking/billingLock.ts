import { ADVISORY_LOCKS, withAdvisoryLock } from '../store/advisoryLock.js';
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

/**
 * On a Postgres server, which every instance shares: its advisory lock (withAdvisoryLock), held
 * while the step runs, which a dead holder never keeps. When Postgres cannot be reached the step
 * does not run and the error is thrown (the pipeline keeps the segment spooled and retries it, as
 * when ClickHouse is down). Embedded PGlite belongs to one process (its files are in DATA_DIR,
 * which spool.lock gives to one pipeline), so the process's own lock is enough there; PGlite would
 * also run every other query of the process behind an open transaction.
 */
export function billingLock(db: Postgres): BillingLock {
  return db.kind === 'server' ? (lookupAndInsert) => withAdvisoryLock(db, ADVISORY_LOCKS.billing, () => lookupAndInsert()) : processBillingLock;
}

let processQueue: Promise<unknown> = Promise.resolve();

/** One step at a time in this process: every pipeline without a shared Postgres server uses this one. */
export const processBillingLock: BillingLock = (lookupAndInsert) => {
  const turn = processQueue.then(lookupAndInsert);
  processQueue = turn.catch(() => undefined);
  return turn;
};
