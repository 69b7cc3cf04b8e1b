import path from 'node:path';
import { lockDirectory } from './directoryLock.js';
import { parseTimestamptz } from './timestampText.js';
import { rethrowUnavailable } from './storeUnavailable.js';
import type { TextParam } from './embeddedRowBytes.js';
import { encodeDataRows } from './dataRows.js';

/** What every repository needs from Postgres; the pg Pool and embedded PGlite both provide it. */
export interface SqlExecutor {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

/** A transaction's statements: queries, and rows kept as the engine's bytes. */
interface TransactionExecutor extends SqlExecutor {
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
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: TransactionExecutor) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
  readonly kind: 'server' | 'embedded';
  /**
   * Embedded only: calls onNotify after each commit of a transaction that sent NOTIFY on `channel`;
   * resolves to the unsubscribe. Absent on a server, where a LISTEN needs a connection of its own
   * that can be lost, so a missed notification would go unnoticed.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  databaseUrl?: string;
  dataDir: string;
  /**
   * On a server, how long a statement waits for a lock another session holds (an operator's LOCK
   * TABLE, another instance's migration) before it fails as unavailable (503 with Retry-After), as
   * when the server cannot be reached in the pool's 5 s, instead of holding the caller and a pooled
   * connection for as long as the lock lasts; 0 or unset: the server's own lock_timeout (config's
   * POSTGRES_LOCK_WAIT_MS sets it). Advisory locks set their own wait (advisoryLock.ts).
   */
  lockWaitMs?: number;
}

/**
 * A pg Pool when DATABASE_URL is set; otherwise embedded PGlite with its files in DATA_DIR/postgres.
 * Embedded, the directory is locked before this returns: when another process holds it, this throws
 * at once (not a rejected promise), so the caller opens nothing else on a running instance's DATA_DIR.
 */
export function openPostgres(options: PostgresOptions): Promise<Postgres> {
  return options.databaseUrl ? openServer(options.databaseUrl, options.lockWaitMs) : openEmbedded(path.join(options.dataDir, 'postgres'));
}

const keepText = (text: string) => text;

async function openServer(databaseUrl: string, lockWaitMs = 0): Promise<Postgres> {
  // Imported here, like PGlite for the embedded store: a start on embedded Postgres never needs it,
  // and loading it cost every such start 0.04-0.05 s.
  const { default: pg } = await import('pg');
  // Postgres bigint (int8) and numeric arrive as strings by default; we keep money in numeric and
  // convert explicitly where it is read, but counts should be plain numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  // lock_timeout goes as a startup parameter (0: none sent), which PgBouncer refuses unless told to
  // ignore it: said at start with the way out, rather than every connection failing.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5000, ...(lockWaitMs > 0 ? { lock_timeout: lockWaitMs } : {}) });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  try {
    await pool.query('SELECT 1');
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
    // A lost server surfaces as StoreUnavailableError (503 with Retry-After), never as a 500.
    query: async (sql, params) => pool.query(sql, params as unknown[]).catch(rethrowUnavailable) as never,
    rowBytes: async (sql, params) => {
      const { rows } = await pool
        .query<(string | null)[]>({ text: sql, values: params as unknown[], rowMode: 'array', types: { getTypeParser: () => keepText } })
        .catch(rethrowUnavailable);
      return rows[0]?.map((field) => (field === null ? null : Buffer.from(field)));
    },
    exec: async (sql) => {
      await pool.query(sql).catch(rethrowUnavailable);
    },
    transaction: async (fn) => {
      const client = await pool.connect().catch(rethrowUnavailable);
      // A checked-out client is outside the pool's error listener: without one of its own, a server
      // that goes away mid-transaction would be an uncaught 'error' that ends the process.
      let lost: Error | undefined;
      const onLost = (error: Error) => {
        lost = error;
      };
      client.on('error', onLost);
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async (sql, params) => client.query(sql, params as unknown[]) as never,
          dataRows: async (sql) => {
            const { rows } = await client.query<(string | null)[]>({ text: sql, rowMode: 'array', types: { getTypeParser: () => keepText } });
            return encodeDataRows(rows);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        rethrowUnavailable(error);
      } finally {
        client.off('error', onLost);
        // A client whose connection was lost is destroyed rather than returned to the pool.
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
function openEmbedded(directory: string): Promise<Postgres> {
  const release = lockDirectory(directory, { name: 'the embedded Postgres', harm: "PGlite's files are one process's own" });
  return openLockedEmbedded(directory, release).catch((error: unknown) => {
    release();
    throw error;
  });
}

async function openLockedEmbedded(directory: string, release: () => void): Promise<Postgres> {
  const { PGlite, types } = await import('@electric-sql/pglite');
  const { embeddedDataRows, embeddedRowBytes } = await import('./embeddedRowBytes.js');
  // timestamptz read as node-postgres reads it on a server (its own parser misreads years 0001-0099).
  const db = await PGlite.create(directory, {
    parsers: { [types.INT8]: (value: string) => Number(value), [types.TIMESTAMPTZ]: parseTimestamptz },
  });
  // Only embeddedRowBytes makes named (cached) statements. A cached statement may switch to a plan
  // made without its parameters' values, and keep it: one made before the first ANALYZE, on default
  // guesses, read every campaign after a list cursor. Planned with the values, as every unnamed
  // statement is, it reads 100 rows in order. The session is the process's one connection.
  await db.exec('SET plan_cache_mode = force_custom_plan');
  const readRowBytes = embeddedRowBytes(db);
  const readDataRows = embeddedDataRows(db);
  return {
    kind: 'embedded',
    // A full disk (53100) surfaces as StoreUnavailableError (503 with Retry-After), as on a server.
    query: async (sql, params) => db.query(sql, params).catch(rethrowUnavailable) as never,
    rowBytes: (sql, params) => readRowBytes(sql, params).catch(rethrowUnavailable),
    exec: async (sql) => {
      await db.exec(sql).catch(rethrowUnavailable);
    },
    transaction: (fn) =>
      db.transaction((tx) => fn({ query: async (sql, params) => tx.query(sql, params) as never, dataRows: readDataRows })).catch(rethrowUnavailable),
    // In process: PGlite hands each notification over when the query that committed it returns.
    listen: async (channel, onNotify) => {
      const unlisten = await db.listen(channel, () => onNotify());
      return () => unlisten();
    },
    close: async () => {
      try {
        await db.close();
      } finally {
        release();
      }
    },
  };
}
