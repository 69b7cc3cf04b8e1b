import { ApiError } from '../http/errors.js';
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
 * The class of the two-key advisory locks, one key per conversion id. Postgres keeps two-key locks
 * apart from the one-key ones (the billing lock, the migrations'), so they never wait on each other.
 */
const CONVERSION_LOCK_CLASS = 724_100_004;

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
const CONVERSION_LOCK_WAIT = '2s';

const busy = () => new ApiError('unavailable', 'too many conversions are being stored at once; retry later');
const stillStoring = () => new ApiError('unavailable', 'a conversion with this conversion_id is still being stored; retry later');

/**
 * On a Postgres server, which every instance shares: a transaction-level advisory lock on the event
 * id's first 32 bits (two ids that share them just take turns), released when the step's
 * transaction ends, or by Postgres when the holder's connection goes (killed -9, cut off). Embedded
 * PGlite belongs to one process, so a lock of the process is enough there (billingLock.ts says why).
 */
export function conversionLock(db: Postgres): ConversionLock {
  return db.kind === 'server' ? advisoryLock(db) : processConversionLock;
}

function advisoryLock(db: Postgres): ConversionLock {
  let holders = 0;
  return async (eventId, lookupAndWrite) => {
    if (holders >= CONVERSION_LOCK_HOLDERS) throw busy();
    holders += 1;
    // The step's own failure (a 503 when ClickHouse did not take the conversion) is thrown as it is.
    let failure: { error: unknown } | undefined;
    try {
      return await db.transaction(async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '${CONVERSION_LOCK_WAIT}'`);
        try {
          await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [CONVERSION_LOCK_CLASS, lockKey(eventId)]);
        } catch (error) {
          // 55P03 lock_not_available: another step of this id still runs after lock_timeout.
          failure = { error: (error as { code?: string }).code === '55P03' ? stillStoring() : error };
          throw error;
        }
        try {
          return await lookupAndWrite();
        } catch (error) {
          failure = { error };
          throw error;
        }
      });
    } catch (error) {
      throw failure ? failure.error : error;
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
