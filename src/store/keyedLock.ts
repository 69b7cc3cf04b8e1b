import type { Postgres } from './postgres.js';
import { AdvisoryLockTimeoutError, withAdvisoryLock } from './advisoryLock.js';

/**
 * Runs one step while no other step with the same key runs, in this process or another instance:
 * a "look it up in ClickHouse + write it" step that two instances (or two requests) running at once
 * would both take for not done yet.
 */
export type KeyedLock = <T>(key: string, step: () => Promise<T>) => Promise<T>;

export interface KeyedLockOptions {
  /** The first key of the two-key advisory locks of this kind (one of advisoryLock.ts's ADVISORY_LOCKS). */
  lockClass: number;
  /** The second key: a key's 32 bits (two keys that share them just take turns). */
  lockKeyOf: (key: string) => number;
  /**
   * Steps that may hold a pooled connection at once (the pool has 10). A step keeps its connection,
   * in an open transaction, across its ClickHouse write, which may take up to its request timeout
   * while ClickHouse is slow: without a cap, such steps then would leave sign-ins, management, the
   * index refresh and the drain's billing lock waiting on the pool. Beyond it, `busy()` is thrown.
   */
  holders: number;
  /** How long a step waits for another step of its key; then `stillRunning()` is thrown. */
  waitMs: number;
  busy: () => Error;
  stillRunning: () => Error;
}

/**
 * On a Postgres server, which every instance shares: a transaction-level advisory lock on
 * (lockClass, lockKeyOf(key)), released when the step's transaction ends, or by Postgres when the
 * holder's connection goes (killed -9, cut off). Embedded PGlite belongs to one process (its files
 * are in DATA_DIR, which one process holds), so a lock of the process is enough there; PGlite would
 * also run every other query of the process behind the step's open transaction.
 */
export function keyedLock(db: Postgres, options: KeyedLockOptions): KeyedLock {
  return db.kind === 'server' ? advisoryLock(db, options) : processLock(options.lockClass);
}

function advisoryLock(db: Postgres, options: KeyedLockOptions): KeyedLock {
  let holders = 0;
  return async (key, step) => {
    if (holders >= options.holders) throw options.busy();
    holders += 1;
    try {
      // The step's own failure (a 503 when ClickHouse did not take its write) is thrown as it is.
      return await withAdvisoryLock(db, [options.lockClass, options.lockKeyOf(key)], () => step(), { waitAtMostMs: options.waitMs });
    } catch (error) {
      throw error instanceof AdvisoryLockTimeoutError ? options.stillRunning() : error;
    } finally {
      holders -= 1;
    }
  };
}

/** Each turn key's steps in this process, one after the other; a key leaves the map when its last step ends. */
const processTurns = new Map<string, Promise<unknown>>();

/**
 * Runs `step` once every earlier step of `turnKey` in this process has ended (however it ended):
 * the lock of a process that has embedded PGlite to itself, in place of a Postgres server's advisory
 * lock. Shared by every lock of the process that names the same key (two apps on one PGlite in tests).
 */
export function processTurn<T>(turnKey: string, step: () => Promise<T>): Promise<T> {
  const turn = (processTurns.get(turnKey) ?? Promise.resolve()).then(step);
  const settled = turn.catch(() => undefined);
  processTurns.set(turnKey, settled);
  void settled.then(() => {
    if (processTurns.get(turnKey) === settled) processTurns.delete(turnKey);
  });
  return turn;
}

function processLock(lockClass: number): KeyedLock {
  return (key, step) => processTurn(`${lockClass}\n${key}`, step);
}
