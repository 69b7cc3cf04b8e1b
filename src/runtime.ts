import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import type { Config } from './config.js';
import { openPostgres, type Postgres } from './store/postgres.js';
import { openClickHouse, type ClickHouse } from './store/clickhouse.js';
import { migrateClickHouseOnce, migratePostgres, refuseNewerMigrations } from './store/migrate.js';
import { lowDiskSpace } from './store/diskSpace.js';

export interface Stores {
  db: Postgres;
  ch: ClickHouse;
  close(): Promise<void>;
}

export class StartupError extends Error {}

/** Checks DATA_DIR, opens both stores and brings their schemas up to date; one clear error if any step fails. */
export async function openStores(config: Config): Promise<Stores> {
  // Checked whatever the stores: the event spool and the generated secrets live there too.
  ensureWritableDirectory(config.DATA_DIR);
  ensureNoFileInTheWay(config);
  const postgresFailure = (error: unknown) =>
    new StartupError(`cannot open Postgres (${config.DATABASE_URL ? 'DATABASE_URL' : 'embedded PGlite'}): ${embeddedCause(config.DATABASE_URL, config.DATA_DIR, error)}`);
  let openingPostgres: Promise<Postgres>;
  try {
    // Throws at once when embedded PGlite's directory is locked by a running instance: a second
    // `serve` on its DATA_DIR stops with the reason before chdb (or anything else) opens its files.
    openingPostgres = openPostgres({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      lockWaitMs: config.POSTGRES_LOCK_WAIT_MS,
      queryTimeoutMs: config.POSTGRES_QUERY_TIMEOUT_MS,
      durableWrites: config.EVENT_SPOOL_FSYNC,
    });
  } catch (error) {
    throw postgresFailure(error);
  }
  // Opened side by side: PGlite compiles its WebAssembly and chdb loads its library meanwhile.
  const [postgres, clickhouse] = await Promise.allSettled([
    openingPostgres.catch((error: unknown) => {
      throw postgresFailure(error);
    }),
    openPingedClickHouse(config).catch((error: unknown) => {
      throw new StartupError(`cannot open ClickHouse (${config.CLICKHOUSE_URL ? 'CLICKHOUSE_URL' : 'embedded chdb'}): ${embeddedCause(config.CLICKHOUSE_URL, config.DATA_DIR, error)}`);
    }),
  ]);
  if (postgres.status === 'rejected' || clickhouse.status === 'rejected') {
    await Promise.allSettled([postgres.status === 'fulfilled' && postgres.value.close(), clickhouse.status === 'fulfilled' && clickhouse.value.close()]);
    throw postgres.status === 'rejected' ? postgres.reason : (clickhouse as PromiseRejectedResult).reason;
  }
  const [db, ch] = [postgres.value, clickhouse.value];
  try {
    // First: on a rollback past the database's migrations, nothing may be migrated, written or replayed.
    await refuseNewerMigrations(db, ch);
    await migratePostgres(db);
    await migrateClickHouseOnce(db, ch);
  } catch (error) {
    await Promise.allSettled([db.close(), ch.close()]);
    throw new StartupError((error as Error).message);
  }
  return {
    db,
    ch,
    close: async () => {
      await Promise.allSettled([db.close(), ch.close()]);
    },
  };
}

async function openPingedClickHouse(config: Config): Promise<ClickHouse> {
  const ch = await openClickHouse({
    url: config.CLICKHOUSE_URL,
    user: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    database: config.CLICKHOUSE_DATABASE,
    replicated: config.CLICKHOUSE_REPLICATED,
    cluster: config.CLICKHOUSE_CLUSTER,
    dataDir: config.DATA_DIR,
    durableWrites: config.EVENT_SPOOL_FSYNC,
  });
  try {
    const ping = await ch.client.ping();
    if (!ping.success) throw ping.error;
    return ch;
  } catch (error) {
    await ch.close().catch(() => undefined);
    throw error;
  }
}

/**
 * An embedded engine's error, led by the likely cause when DATA_DIR's file system is full (PGlite
 * says only "Aborted()", or rejects with its file system's ErrnoError, which has no message).
 */
function embeddedCause(serverUrl: string | undefined, dataDir: string, error: unknown): string {
  const message = messageOf(error);
  const full = serverUrl ? undefined : lowDiskSpace(dataDir);
  if (full) return message ? `${full} (${message})` : full;
  return message || inspect(error, { breakLength: Infinity });
}

/** What was thrown says, or '' when it says nothing (not everything rejected is an Error with a message). */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  return typeof error === 'string' ? error : '';
}

function ensureWritableDirectory(directory: string): void {
  try {
    makeDirectoryPath(directory);
    // A regular file passes the access check; PGlite would then fail on its lock file inside it.
    if (!statSync(directory).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(directory, constants.W_OK | constants.R_OK);
  } catch (error) {
    throw new StartupError(`DATA_DIR ${directory} is not a writable directory: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * What the service keeps in DATA_DIR as directories (the embedded engines' only when they are used).
 * Anything else by one of these names stops the start with its name, before anything is opened:
 * PGlite said only `ErrnoError { errno: 54 }` of a file named postgres, the spool a stack.
 */
function ensureNoFileInTheWay(config: Config): void {
  const names = ['spool', 'quarantine', 'serve-counts', 'catalog-snapshot', 'ivt'];
  if (!config.DATABASE_URL) names.push('postgres');
  if (!config.CLICKHOUSE_URL) names.push('clickhouse');
  for (const name of names) {
    const file = path.join(config.DATA_DIR, name);
    if (existsSync(file) && !statSync(file).isDirectory()) throw new StartupError(`DATA_DIR/${name} (${file}) is not a directory`);
  }
}

/**
 * mkdir -p without Node's recursive mkdir, which retries forever where mkdir answers ENOENT under a
 * parent that exists (DATA_DIR=/proc/nope spun at full CPU): each missing directory is made once,
 * top down, and the first failure is the answer.
 */
function makeDirectoryPath(directory: string): void {
  const missing: string[] = [];
  for (let current = path.resolve(directory); !existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
