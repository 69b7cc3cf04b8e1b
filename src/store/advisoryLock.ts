import type { Postgres, SqlExecutor } from './postgres.js';

/**
 * A Postgres advisory lock: one 64-bit key, or a class and a key (two 32-bit ints). Postgres keeps
 * two-key locks apart from one-key ones, so the two kinds never wait on each other.
 */
export type AdvisoryLockKey = number | readonly [lockClass: number, key: number];

/** Every advisory lock the service takes, here so that no two share a number (any fixed numbers). */
export const ADVISORY_LOCKS = {
  /** Instances starting together apply the Postgres migrations one after another (migrate.ts). */
  postgresMigrations: 724_100_001,
  /** ... and the ClickHouse migrations, so a backfill is not repeated (migrate.ts). */
  clickhouseMigrations: 724_100_002,
  /** One "already billed? + insert" step at a time across instances (src/tracking/billingLock.ts). */
  billing: 724_100_003,
  /** The class of the two-key locks, one key per conversion event id (src/tracking/conversionLock.ts). */
  conversionClass: 724_100_004,
  /** The class of the two-key locks, one key per keyed import's range of lines (src/tracking/importOnce.ts). */
  importRangeClass: 724_100_005,
  /** Session-level, held for an instance's life: one instance with embedded ClickHouse per database (embeddedClickHouseClaim.ts). */
  embeddedClickHouse: 724_100_006,
} as const;

/** The lock was still held by another transaction after the wait the caller allowed. */
export class AdvisoryLockTimeoutError extends Error {}

/**
 * Runs `step` in a transaction that first takes the transaction-level advisory lock `key`
 * (pg_advisory_xact_lock): held while the step runs and released when its transaction ends, or by
 * Postgres itself when the holder's connection goes (a process killed -9 or cut off), so a dead
 * holder never blocks the others. With `waitAtMostMs` a wait longer than that throws
 * AdvisoryLockTimeoutError and the step never runs (the limit is the transaction's lock_timeout, so
 * it also bounds the lock waits of the step's own queries on `tx`). The step's own failure is thrown
 * as it is, not as what the transaction makes of it; a failure to begin or to take the lock (Postgres
 * unreachable, or not answering within its query bound) is thrown as the transaction's
 * (StoreUnavailableError). `queryTimeoutMs` is the transaction's own query bound (Postgres.transaction;
 * 0: none, for migrations at start).
 */
export async function withAdvisoryLock<T>(
  db: Postgres,
  key: AdvisoryLockKey,
  step: (tx: SqlExecutor) => Promise<T>,
  { waitAtMostMs, queryTimeoutMs }: { waitAtMostMs?: number; queryTimeoutMs?: number } = {},
): Promise<T> {
  let failure: { error: unknown } | undefined;
  try {
    return await db.transaction(
      async (tx) => {
        try {
          await waitForLock(tx, key, waitAtMostMs ?? 0, db.queryTimeoutMs / 2);
        } catch (error) {
          // 55P03 lock_not_available: lock_timeout passed while another transaction held it.
          if ((error as { code?: string }).code === '55P03') failure = { error: new AdvisoryLockTimeoutError(`advisory lock ${String(key)} still held after ${waitAtMostMs} ms`) };
          throw error;
        }
        try {
          return await step(tx);
        } catch (error) {
          failure = { error };
          throw error;
        }
      },
      queryTimeoutMs === undefined ? undefined : { queryTimeoutMs },
    );
  } catch (error) {
    throw failure ? failure.error : error;
  }
}

/**
 * Takes the lock, waiting at most `waitMs` (0: for as long as the holder works). A wait longer
 * than the query bound (Postgres.queryTimeoutMs, which cuts a query the server has not answered) is
 * made of waits of at most `sliceMs`, each the server's lock_timeout inside one savepoint that each
 * failed wait rolls back to, so each answers well within the bound: a holder that works a minute (a
 * migration, another instance's billing write while ClickHouse is slow) is waited for, and a server
 * that stops answering still fails the wait within the bound. sliceMs 0 (embedded PGlite, no query
 * bound): one wait. Between two slices another waiter may take the lock first; the wait goes on.
 *
 * First of all, one round trip tries the lock without waiting (pg_try_advisory_xact_lock, which
 * also fails while others wait for it, so a newcomer never jumps the queue), sets the step's
 * lock_timeout and asks whether the server takes only reads (refuseReadOnly): a lock nobody holds,
 * the common case, costs that one statement beside BEGIN and COMMIT (it cost five before).
 */
async function waitForLock(tx: SqlExecutor, key: AdvisoryLockKey, waitMs: number, sliceMs: number): Promise<void> {
  const keyParams = typeof key === 'number' ? [key] : [key[0], key[1]];
  const keySql = typeof key === 'number' ? '$1::bigint' : '$1::int, $2::int';
  const lock = () => tx.query(`SELECT pg_advisory_xact_lock(${keySql})`, keyParams);
  // Without a limit the wait is for as long as the holder works (0: no lock_timeout), not the
  // pool's lock_timeout (POSTGRES_LOCK_WAIT_MS): a migration or another instance's billing write may take longer.
  const wanted = `${waitMs}ms`;
  const { rows } = await tx.query<{ taken: boolean; read_only: string }>(
    `SELECT pg_try_advisory_xact_lock(${keySql}) AS taken, set_config('lock_timeout', $${keyParams.length + 1}, true), current_setting('transaction_read_only') AS read_only`,
    [...keyParams, wanted],
  );
  refuseReadOnly(rows[0]?.read_only);
  if (rows[0]?.taken === true) return;
  const deadline = waitMs > 0 ? Date.now() + waitMs : Infinity;
  let set = wanted;
  const setLockTimeout = async (value: string) => {
    if (value === set) return;
    await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [value]);
    set = value;
  };
  let savepoint = false;
  for (let first = true; ; first = false) {
    const left = deadline - Date.now();
    if (sliceMs === 0 || left <= sliceMs) {
      // The last wait (the only one when the caller's limit fits in a slice): what is left of the limit.
      await setLockTimeout(first ? wanted : `${Math.max(1, Math.ceil(left))}ms`);
      await lock();
      break;
    }
    // Set before the savepoint, so that rolling back to it keeps the slices' lock_timeout.
    await setLockTimeout(`${Math.floor(sliceMs)}ms`);
    // One savepoint for all the slices: rolling back to it ends a failed wait and keeps it, so an
    // hour's wait (720 slices of 5 s) nests one savepoint, not one more a slice.
    if (!savepoint) await tx.query('SAVEPOINT advisory_lock_wait');
    savepoint = true;
    try {
      await lock();
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03') throw error;
      await tx.query('ROLLBACK TO SAVEPOINT advisory_lock_wait');
    }
  }
  // The step's own lock waits: the caller's limit, not the last slice's.
  await setLockTimeout(wanted);
}

/**
 * A server that takes only reads (an old primary after a failover, a standby) grants advisory locks
 * too, but they are its own: instances on it and instances on the new primary would each hold "the"
 * lock at once (two billing writers: a replayed click billed twice). Such a server is unavailable
 * for a lock, as for a write (25006, answered 503).
 */
function refuseReadOnly(readOnly: string | undefined): void {
  if (readOnly !== 'off') {
    throw Object.assign(new Error('Postgres takes only reads here: no advisory lock of it is shared with the instances on the primary'), { code: '25006' });
  }
}
