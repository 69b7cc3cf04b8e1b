import { rmSync } from 'node:fs';
import path from 'node:path';
import { lockDirectory } from './directoryLock.js';
import { syncFileSystemOf } from './durableWrites.js';
import { parseTimestamptz } from './timestampText.js';
import { StoreUnavailableError, isStorageFault, rethrowUnavailable } from './storeUnavailable.js';
import type { TextParam } from './embeddedRowBytes.js';
import { encodeDataRows } from './dataRows.js';
import { openWritableCheck, type WritableCheck } from './writableCheck.js';
import { POSTGRES_FREE_SPACE_FLOOR_BYTES } from './diskSpace.js';

/** What every repository needs from Postgres; the pg Pool and embedded PGlite both provide it. */
export interface SqlExecutor {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

/**
 * A transaction's statements: queries, and rows kept as the engine's bytes. The pool (Postgres)
 * is not one (it has no dataRows), so code that must run inside a transaction (several writes that
 * stand or fall together, a FOR UPDATE that holds until the commit) takes this type and cannot be
 * handed the pool, whose statements would each commit on their own.
 */
export interface TransactionExecutor extends SqlExecutor {
  /**
   * Every row of `sql` (no parameters) as DataRow messages (dataRows.ts): for many rows that are
   * kept as bytes rather than decoded into objects. Embedded, as the engine wrote them, in a
   * SharedArrayBuffer (a worker thread reads them without a copy).
   */
  dataRows(sql: string): Promise<Buffer>;
}

export interface Postgres extends SqlExecutor {
  /**
   * The first row's fields as the UTF-8 text the engine wrote (undefined when there is no row), for
   * text built by the engine and sent on as it is, such as a page of JSON: no string is decoded and
   * encoded back. Embedded, see embeddedRowBytes.ts.
   */
  rowBytes(sql: string, params: readonly TextParam[]): Promise<(Buffer | null)[] | undefined>;
  /**
   * Runs fn in one transaction: committed when fn resolves, rolled back when it throws. On a server
   * each of its queries waits at most queryTimeoutMs for its answer, unless `options` give the
   * transaction a bound of its own (0: none), for the few that legitimately take longer.
   */
  transaction<T>(fn: (tx: TransactionExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  readonly kind: 'server' | 'embedded';
  /**
   * On a server, how long a query waits for its answer before it fails as unavailable (503 with
   * Retry-After) and its connection is destroyed (POSTGRES_QUERY_TIMEOUT_MS); 0 embedded, where
   * PGlite runs in the process and cannot stop answering.
   */
  readonly queryTimeoutMs: number;
  /**
   * Embedded only: calls onNotify after each commit of a transaction that sent NOTIFY on `channel`;
   * resolves to the unsubscribe. Absent on a server, where a LISTEN needs a connection of its own
   * that can be lost, so a missed notification would go unnoticed.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

interface TransactionOptions {
  /** On a server, how long each of the transaction's queries may wait for its answer; 0: no bound. */
  queryTimeoutMs?: number;
}

export interface PostgresOptions {
  databaseUrl?: string;
  dataDir: string;
  /**
   * Embedded only: a write's answer waits until PGlite's files are on disk (EVENT_SPOOL_FSYNC).
   * PGlite's commits reach the disk only with the kernel's writeback (its file system is
   * Emscripten's over Node's): a power loss lost every campaign composed in its last ~30 s (try40
   * F7, 20 of 20 answered 201), though a kill -9 loses nothing.
   */
  durableWrites?: boolean;
  /**
   * On a server, how long a statement waits for a lock another session holds (an operator's LOCK
   * TABLE, another instance's migration) before it fails as unavailable (503 with Retry-After), as
   * when the server cannot be reached in the pool's 5 s, instead of holding the caller and a pooled
   * connection for as long as the lock lasts; 0 or unset: the server's own lock_timeout (config's
   * POSTGRES_LOCK_WAIT_MS sets it). Advisory locks set their own wait (advisoryLock.ts).
   */
  lockWaitMs?: number;
  /**
   * On a server, how long a query waits for its answer (config's POSTGRES_QUERY_TIMEOUT_MS): a
   * server that stops answering without closing the connection (frozen, a failover whose old
   * primary keeps its sockets, a network cut without a reset) would otherwise hold the caller for
   * as long as it lasts. 0: no bound.
   */
  queryTimeoutMs?: number;
}

/**
 * A pg Pool when DATABASE_URL is set; otherwise embedded PGlite with its files in DATA_DIR/postgres.
 * Embedded, the directory is locked before this returns: when another process holds it, this throws
 * at once (not a rejected promise), so the caller opens nothing else on a running instance's DATA_DIR.
 */
export function openPostgres(options: PostgresOptions): Promise<Postgres> {
  return options.databaseUrl
    ? openServer(options.databaseUrl, options.lockWaitMs, options.queryTimeoutMs)
    : openEmbedded(path.join(options.dataDir, 'postgres'), options.durableWrites ?? false);
}

const keepText = (text: string) => text;

/**
 * What node-postgres rejects a query with when its query_timeout passes; the query is still on the
 * connection, which is therefore destroyed (released with the error), never reused.
 */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * TCP keepalive on the pool's sockets: an idle connection to a server that went away without a
 * reset (a network cut, a machine gone) is found dead after 10 s idle plus Node's 10 probes 1 s
 * apart, and replaced before a request picks it, instead of after the OS's two hours.
 */
const KEEPALIVE_IDLE_MS = 10_000;

async function openServer(databaseUrl: string, lockWaitMs = 0, queryTimeoutMs = 0): Promise<Postgres> {
  // Imported here, like PGlite for the embedded store: a start on embedded Postgres never needs it,
  // and loading it cost every such start 0.04-0.05 s.
  const { default: pg } = await import('pg');
  // Postgres bigint (int8) and numeric arrive as strings by default; we keep money in numeric and
  // convert explicitly where it is read, but counts should be plain numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  // lock_timeout goes as a startup parameter (0: none sent), which PgBouncer refuses unless told to
  // ignore it: said at start with the way out, rather than every connection failing. The query bound
  // goes with each query (queryConfig), not as the pool's query_timeout: node-postgres reads a
  // query's 0 as "the pool's", so a transaction could not ask for none (migrations).
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    ...(lockWaitMs > 0 ? { lock_timeout: lockWaitMs } : {}),
  });
  const queryConfig = (text: string, values: unknown[] | undefined, timeoutMs: number) => ({ text, values, ...(timeoutMs > 0 ? { query_timeout: timeoutMs } : {}) });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  try {
    await pool.query(queryConfig('SELECT 1', undefined, queryTimeoutMs));
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (/unsupported startup parameter: lock_timeout/.test((error as Error).message)) {
      throw new Error(
        `${(error as Error).message}: a pooler (PgBouncer) refuses the lock wait; set POSTGRES_LOCK_WAIT_MS=0, and keep the wait with ALTER ROLE <user> SET lock_timeout = '5s' on Postgres`,
        { cause: error },
      );
    }
    throw error;
  }
  return {
    kind: 'server',
    queryTimeoutMs,
    // A lost server, or one that did not answer in time, surfaces as StoreUnavailableError (503 with
    // Retry-After), never as a 500. pool.query releases a client whose query failed with the error,
    // which destroys it: a timed-out query never leaves its connection in the pool.
    query: async (sql, params) => pool.query(queryConfig(sql, params as unknown[], queryTimeoutMs)).catch(rethrowUnavailable) as never,
    rowBytes: async (sql, params) => {
      const { rows } = await pool
        .query<(string | null)[]>({ ...queryConfig(sql, params as unknown[], queryTimeoutMs), rowMode: 'array', types: { getTypeParser: () => keepText } })
        .catch(rethrowUnavailable);
      return rows[0]?.map((field) => (field === null ? null : Buffer.from(field)));
    },
    exec: async (sql) => {
      await pool.query(queryConfig(sql, undefined, queryTimeoutMs)).catch(rethrowUnavailable);
    },
    transaction: async (fn, options) => {
      const timeoutMs = options?.queryTimeoutMs ?? queryTimeoutMs;
      const client = await pool.connect().catch(rethrowUnavailable);
      // A checked-out client is outside the pool's error listener: without one of its own, a server
      // that goes away mid-transaction would be an uncaught 'error' that ends the process.
      let lost: Error | undefined;
      const onLost = (error: Error) => {
        lost = error;
      };
      client.on('error', onLost);
      // A query that timed out is still on the connection: anything sent after it (a ROLLBACK) would
      // wait behind it, so the connection is given up, and the server ends the transaction with it.
      const noticeTimeout = <Result>(query: Promise<Result>) =>
        query.catch((error: unknown) => {
          if ((error as Error)?.message === QUERY_TIMEOUT_MESSAGE) lost = error as Error;
          throw error;
        });
      try {
        await noticeTimeout(client.query(queryConfig('BEGIN', undefined, timeoutMs)));
        const result = await fn({
          query: async (sql, params) => noticeTimeout(client.query(queryConfig(sql, params as unknown[], timeoutMs))) as never,
          dataRows: async (sql) => {
            const { rows } = await noticeTimeout(
              client.query<(string | null)[]>({ ...queryConfig(sql, undefined, timeoutMs), rowMode: 'array', types: { getTypeParser: () => keepText } }),
            );
            return encodeDataRows(rows);
          },
        });
        await noticeTimeout(client.query(queryConfig('COMMIT', undefined, timeoutMs)));
        return result;
      } catch (error) {
        if (!lost) await noticeTimeout(client.query(queryConfig('ROLLBACK', undefined, timeoutMs))).catch(() => undefined);
        rethrowUnavailable(error);
      } finally {
        client.off('error', onLost);
        // A client whose connection was lost or whose query timed out is destroyed rather than returned to the pool.
        client.release(lost);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite's files belong to one process: the directory is locked before anything opens them (a second
 * process on them only aborts) and released when the database is closed, or failed to open.
 */
function openEmbedded(directory: string, durableWrites: boolean): Promise<Postgres> {
  const release = lockDirectory(directory, { name: 'the embedded Postgres', harm: "PGlite's files are one process's own" });
  return openLockedEmbedded(directory, durableWrites, release).catch((error: unknown) => {
    release();
    throw error;
  });
}

async function openLockedEmbedded(directory: string, durableWrites: boolean, release: () => void): Promise<Postgres> {
  const { PGlite, types } = await import('@electric-sql/pglite');
  const { embeddedDataRows, embeddedRowBytes } = await import('./embeddedRowBytes.js');
  // Postgres refuses an empty postmaster.pid ("lock file is empty"), which a power loss or a disk
  // fault soon after a start leaves (try40 F9); the directory lock taken above already keeps every
  // other process off these files, so the pid file tells nothing and goes.
  rmSync(path.join(directory, 'postmaster.pid'), { force: true });
  // timestamptz read as node-postgres reads it on a server (its own parser misreads years 0001-0099).
  const db = await PGlite.create(directory, {
    parsers: { [types.INT8]: (value: string) => Number(value), [types.TIMESTAMPTZ]: parseTimestamptz },
  });
  // Only embeddedRowBytes makes named (cached) statements. A cached statement may switch to a plan
  // made without its parameters' values, and keep it: one made before the first ANALYZE, on default
  // guesses, read every campaign after a list cursor. Planned with the values, as every unnamed
  // statement is, it reads 100 rows in order. The session is the process's one connection.
  await db.exec('SET plan_cache_mode = force_custom_plan');
  // A sync that cannot work (no `sync --file-system` here) stops the start rather than every write.
  if (durableWrites) await syncFileSystemOf(directory);
  const readRowBytes = embeddedRowBytes(db);
  const readDataRows = embeddedDataRows(db);
  // The first fault found in PGlite's files (a data directory turned read-only, a failing disk):
  // a statement that met it (isStorageFault), or the check below. From then on no statement reaches
  // PGlite until a restart: they all answer 503 and /healthz fails `postgres`. PGlite does not
  // survive more: a statement whose commit found the WAL unwritable ("could not write to log file",
  // a PANIC in Postgres) never returns and holds the main thread until the watchdog ends the process
  // (try39 F8, try40 F10: the first small insert after the fault, whose pages were in memory).
  let storageFault: unknown;
  // So each statement, and each of a transaction's, first asks whether the file system still takes
  // writes (writableCheck.ts, µs), and one that no longer does is answered 503 without calling PGlite.
  // It asks too whether the file system has room for the write-ahead log (a full one is the same
  // PANIC at the commit that needs a new WAL file): below the floor a statement is answered 503, until
  // space is freed; PGlite itself has met nothing, so nothing lasts.
  let writable: WritableCheck;
  try {
    writable = openWritableCheck(path.join(directory, 'PG_VERSION'), POSTGRES_FREE_SPACE_FLOOR_BYTES);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  const refuseOnFault = () => {
    if (storageFault === undefined) {
      const fault = writable.fault();
      if (fault !== undefined) storageFault = new Error(`PGlite's files in ${directory} can no longer be written: ${fault.message}`, { cause: fault });
    }
    if (storageFault !== undefined) throw new StoreUnavailableError(storageFault);
    const short = writable.shortOfSpace();
    if (short !== undefined) throw new StoreUnavailableError(new Error(`PGlite is sent no statement: ${short}`));
  };
  // PGlite runs one statement (or transaction) at a time: the others wait on its own lock, and a
  // check made when a statement was sent would be old when its turn came (a compose holds PGlite for
  // all its statements; a disk that failed meanwhile would meet the statements queued behind it
  // unchecked). So statements take their turns here, one after another, each checked as its turn
  // comes; PGlite would have run them one by one anyway. A transaction's own statements run inside
  // its turn (checked one by one in transaction below).
  let lastTurn: Promise<unknown> = Promise.resolve();
  const inTurn = <Result>(statement: () => Promise<Result>): Promise<Result> => {
    const turn = lastTurn.then(() => {
      refuseOnFault();
      return statement();
    });
    lastTurn = turn.catch(() => undefined);
    return turn;
  };
  const run = async <Result>(statement: () => Promise<Result>, writes = false): Promise<Result> => {
    try {
      const result = await inTurn(statement);
      // After the commit, before the answer: what was answered is on the disk (durableWrites). A
      // sync that fails leaves the write committed, so it is answered as done (an error would make
      // its client send it again: twice), and the disk is taken as failing: every later statement 503.
      if (writes && durableWrites) await syncFileSystemOf(directory).catch((error: unknown) => (storageFault ??= error));
      return result;
    } catch (error) {
      // Refused by the check: already the answer.
      if (error instanceof StoreUnavailableError) throw error;
      if (isStorageFault(error)) storageFault ??= error;
      rethrowUnavailable(error);
    }
  };
  // A statement outside a transaction that may write (a false yes costs only a sync): the index's
  // change poll, a read a few times a second, is not synced each time.
  const mayWrite = (sql: string) => /\b(INSERT|UPDATE|DELETE|MERGE|CREATE|ALTER|DROP|TRUNCATE|COPY|VACUUM|ANALYZE|CLUSTER|REINDEX)\b/i.test(sql);
  return {
    kind: 'embedded',
    queryTimeoutMs: 0,
    // A full disk (53100) surfaces as StoreUnavailableError (503 with Retry-After), as on a server.
    query: (sql, params) => run(() => db.query(sql, params), durableWrites && mayWrite(sql)) as never,
    rowBytes: (sql, params) => run(() => readRowBytes(sql, params)),
    exec: async (sql) => {
      await run(() => db.exec(sql), true);
    },
    transaction: (fn) =>
      run(
        () =>
          db.transaction((tx) =>
            fn({
              query: async (sql, params) => {
                refuseOnFault();
                return tx.query(sql, params) as never;
              },
              dataRows: async (sql) => {
                refuseOnFault();
                return readDataRows(sql);
              },
            }),
          ),
        true,
      ),
    // In process: PGlite hands each notification over when the query that committed it returns.
    listen: async (channel, onNotify) => {
      const unlisten = await db.listen(channel, () => onNotify());
      return () => unlisten();
    },
    close: async () => {
      try {
        // After a storage fault PGlite is not asked again, not even to close: its close writes too
        // (a checkpoint), and on a file system that turned read-only while idle, or one too full for
        // another WAL file, it would not return. What was committed is in the WAL: the next start has it.
        if (storageFault === undefined && writable.fault() === undefined && writable.shortOfSpace() === undefined) await db.close();
      } finally {
        writable.close();
        release();
      }
    },
  };
}
