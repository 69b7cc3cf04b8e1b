import { ApiError } from '../http/errors.js';
import { ADVISORY_LOCKS, AdvisoryLockTimeoutError, withAdvisoryLock } from '../store/advisoryLock.js';
import type { Postgres } from '../store/postgres.js';

/**
 * Runs one "is this conversion already stored? + store it" step while no other request with the
 * same conversion event id runs one, in this process or another instance. Without it two instances
 * that receive the same conversion_id in the same instant both look, neither finds the other's
 * conversion (not yet in ClickHouse) and both store and bill it. With it the second one looks after
 * the first one's write to ClickHouse has returned (conversionRecorder.ts writes it before
 * answering), finds it and answers 200 with it.
 */
export type ConversionLock = <T>(eventId: string, lookupAndWrite: () => Promise<T>) => Promise<T>;

/**
 * Steps that may hold a pooled connection at once (the pool has 10). A step keeps its connection,
 * in an open transaction, across its ClickHouse insert, which may take up to its request timeout
 * while ClickHouse is slow: without a cap, ten conversions then would leave sign-ins, management,
 * the index refresh and the drain's billing lock waiting on the pool. Beyond it: 503, retried.
 */
export const CONVERSION_LOCK_HOLDERS = 3;

/**
 * How long a step waits for another step of the same id to finish. That one normally takes one
 * ClickHouse insert (milliseconds); a waiter that gives up answers 503 and the sender retries.
 */
const CONVERSION_LOCK_WAIT_MS = 2000;

const busy = () => new ApiError('unavailable', 'too many conversions are being stored at once; retry later');
const stillStoring = () => new ApiError('unavailable', 'a conversion with this conversion_id is still being stored; retry later');

/**
 * On a Postgres server, which every instance shares: an advisory lock (withAdvisoryLock) of the
 * conversions' class on the event id's first 32 bits (two ids that share them just take turns),
 * which a dead holder never keeps. Embedded PGlite belongs to one process, so a lock of the process
 * is enough there (billingLock.ts says why).
 */
export function conversionLock(db: Postgres): ConversionLock {
  return db.kind === 'server' ? advisoryLock(db) : processConversionLock;
}

function advisoryLock(db: Postgres): ConversionLock {
  let holders = 0;
  return async (eventId, lookupAndWrite) => {
    if (holders >= CONVERSION_LOCK_HOLDERS) throw busy();
    holders += 1;
    try {
      // The step's own failure (a 503 when ClickHouse did not take the conversion) is thrown as it is.
      return await withAdvisoryLock(db, [ADVISORY_LOCKS.conversionClass, lockKey(eventId)], () => lookupAndWrite(), { waitAtMostMs: CONVERSION_LOCK_WAIT_MS });
    } catch (error) {
      throw error instanceof AdvisoryLockTimeoutError ? stillStoring() : error;
    } finally {
      holders -= 1;
    }
  };
}

/** The event id's first 8 hex digits as a signed 32-bit integer (Postgres int). */
function lockKey(eventId: string): number {
  return Number.parseInt(eventId.slice(0, 8), 16) | 0;
}

/** Each conversion id's steps in this process, one after the other; an id leaves the map when its last step ends. */
const processTurns = new Map<string, Promise<unknown>>();

const processConversionLock: ConversionLock = (eventId, lookupAndWrite) => {
  const turn = (processTurns.get(eventId) ?? Promise.resolve()).then(lookupAndWrite);
  const settled = turn.catch(() => undefined);
  processTurns.set(eventId, settled);
  void settled.then(() => {
    if (processTurns.get(eventId) === settled) processTurns.delete(eventId);
  });
  return turn;
};
