import { ApiError } from '../http/errors.js';
import { ADVISORY_LOCKS } from '../store/advisoryLock.js';
import type { Postgres } from '../store/postgres.js';
import { keyedLock, type KeyedLock } from '../store/keyedLock.js';

/**
 * Runs one "is this conversion already stored? + store it" step while no other request with the
 * same conversion event id runs one, in this process or another instance. Without it two instances
 * that receive the same conversion_id in the same instant both look, neither finds the other's
 * conversion (not yet in ClickHouse) and both store and bill it. With it the second one looks after
 * the first one's write to ClickHouse has returned (conversionRecorder.ts writes it before
 * answering), finds it and answers 200 with it.
 */
export type ConversionLock = KeyedLock;

/** Conversion steps that may hold a pooled connection at once (keyedLock.ts says why there is a cap); beyond it: 503, retried. */
export const CONVERSION_LOCK_HOLDERS = 3;

/**
 * A lock per conversion event id: on a Postgres server an advisory lock of its own class on the id's
 * first 32 bits. A step waits up to 2 s for another step of the same id to finish: that one
 * normally takes one ClickHouse insert (milliseconds); a waiter that gives up answers 503 and the
 * sender retries.
 */
export function conversionLock(db: Postgres): ConversionLock {
  return keyedLock(db, {
    lockClass: ADVISORY_LOCKS.conversionClass,
    // The event id's first 8 hex digits as a signed 32-bit integer (Postgres int).
    lockKeyOf: (eventId) => Number.parseInt(eventId.slice(0, 8), 16) | 0,
    holders: CONVERSION_LOCK_HOLDERS,
    waitMs: 2000,
    busy: () => new ApiError('unavailable', 'too many conversions are being stored at once; retry later'),
    stillRunning: () => new ApiError('unavailable', 'a conversion with this conversion_id is still being stored; retry later'),
  });
}
