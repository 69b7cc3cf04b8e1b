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
 * On a Postgres server, which every instance shares: a transaction-level advisory lock on the event
 * id's first 32 bits (two ids that share them just take turns), released when the step's
 * transaction ends, or by Postgres when the holder's connection goes (killed -9, cut off). Embedded
 * PGlite belongs to one process, so a lock of the process is enough there (billingLock.ts says why).
 */
export function conversionLock(db: Postgres): ConversionLock {
  return db.kind === 'server' ? advisoryLock(db) : processConversionLock;
}

function advisoryLock(db: Postgres): ConversionLock {
  return async (eventId, lookupAndWrite) => {
    // The step's own failure (a 503 when ClickHouse did not take the conversion) is thrown as it is.
    let failure: { error: unknown } | undefined;
    try {
      return await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [CONVERSION_LOCK_CLASS, lockKey(eventId)]);
        try {
          return await lookupAndWrite();
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
