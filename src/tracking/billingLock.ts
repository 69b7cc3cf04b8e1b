import { ADVISORY_LOCKS, withAdvisoryLock } from '../store/advisoryLock.js';
import { processTurn } from '../store/keyedLock.js';
import type { Postgres } from '../store/postgres.js';

/**
 * Runs one "which of these serves are already billed? + insert" step (billedOnce.ts) while no other
 * pipeline, of this process or another instance, runs one. Without it two instances that each hold a
 * valid event of the same serve both look (neither finds the other's event, not yet inserted) and
 * both insert it billed. With it the second one looks after the first one's insert has returned, and
 * an insert returns once its rows are in serve_events_v1 (a view, written with the table; on a
 * cluster insert_distributed_sync makes it wait for the shards), so it finds that event and stores
 * its own as `duplicate`.
 *
 * Not a KeyedLock (src/store/keyedLock.ts), though both are "one step at a time, across instances
 * or in the process": one step covers a whole batch of serves, so there is one lock and no key;
 * its waiter is the pipeline's drain, which may wait as long as it takes (it keeps the segment
 * spooled meanwhile), not a request that must answer, so it has neither a wait limit nor a cap on
 * holders; and it is the one-key advisory lock ADVISORY_LOCKS.billing that running instances of
 * earlier releases take, where a KeyedLock takes a two-key one: during a rolling deploy the two
 * would not exclude each other. In the process both take turns the same way (processTurn).
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

/** One step at a time in this process: every pipeline without a shared Postgres server uses this one. */
export const processBillingLock: BillingLock = (lookupAndInsert) => processTurn(String(ADVISORY_LOCKS.billing), lookupAndInsert);
