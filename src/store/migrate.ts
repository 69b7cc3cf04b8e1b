import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../packageRoot.js';
import type { Postgres } from './postgres.js';
import { ADVISORY_LOCKS, withAdvisoryLock } from './advisoryLock.js';
import type { ClickHouse } from './clickhouse.js';
import { clusterStatements, type ClusterTables, type ClusterTarget } from './clusterDdl.js';

export class MigrationError extends Error {}

interface MigrationFile {
  name: string;
  sql: string;
}

/** Numbered plain-SQL files of a folder, in order (0001_x.sql, 0002_y.sql, ...). */
export async function readMigrationFiles(folder: string): Promise<MigrationFile[]> {
  const names = (await readdir(folder)).filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name)).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(path.join(folder, name), 'utf8') })));
}

/**
 * Names earlier releases applied under a name this one no longer has (a file renamed soon after it
 * was merged): known, so a database that recorded them is not taken for a newer release's.
 */
const RENAMED_MIGRATIONS = new Set(['0012_api_keys_notify.sql', 'clickhouse/0011_reach_window_figures.sql']);

/**
 * Refuses a database migrated by a newer release (a rollback past its migrations): this release
 * would misread the newer schema, and die on it only after its start replayed the spool into
 * ClickHouse; the newer release, started again, would replay the same segment and store it twice.
 * Read only, and before anything is written (openStores runs it first; the spool is replayed later).
 */
export async function refuseNewerMigrations(
  db: Postgres,
  ch: ClickHouse,
  folders = { postgres: path.join(packageRoot, 'migrations'), clickhouse: path.join(packageRoot, 'clickhouse') },
): Promise<void> {
  const postgresApplied = (await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")).rows[0]?.present
    ? (await db.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name)
    : [];
  refuseUnknown('the database', '', postgresApplied, await readMigrationFiles(folders.postgres));
  const present = await ch.client.query({
    query: "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'",
    format: 'JSONEachRow',
  });
  const clickhouseApplied = Number((await present.json<{ n: string | number }>())[0]?.n ?? 0) > 0
    ? (await (await ch.client.query({ query: 'SELECT DISTINCT name FROM schema_migrations', format: 'JSONEachRow' })).json<{ name: string }>()).map((row) => row.name)
    : [];
  refuseUnknown('ClickHouse', 'clickhouse/', clickhouseApplied, await readMigrationFiles(folders.clickhouse));
}

function refuseUnknown(store: string, prefix: string, applied: string[], files: MigrationFile[]): void {
  const known = new Set(files.map((file) => file.name));
  const unknown = applied.filter((name) => !known.has(name) && !RENAMED_MIGRATIONS.has(prefix + name)).sort();
  if (unknown.length === 0) return;
  const bare = (name: string) => prefix + name.replace(/\.sql$/, '');
  const last = files.at(-1);
  throw new MigrationError(
    `${store} was migrated by a newer release (${unknown.map(bare).join(', ')}); this release knows up to ${last ? bare(last.name) : 'none'}: start the newer release or restore a backup`,
  );
}

/** Applies the Postgres migrations not yet recorded in schema_migrations; returns the names it applied. */
export async function migratePostgres(db: Postgres, folder = path.join(packageRoot, 'migrations')): Promise<string[]> {
  const files = await readMigrationFiles(folder);
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  // Every instance that starts at once waits here, so migrations run exactly once. No query bound
  // (POSTGRES_QUERY_TIMEOUT_MS): a migration may rewrite or index a large table for minutes, and a
  // start that waits for it serves nothing meanwhile; a cut network is still found by TCP keepalive.
  return withAdvisoryLock(
    db,
    ADVISORY_LOCKS.postgresMigrations,
    async (tx) => {
      const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name));
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file.name)) continue;
        for (const statement of splitStatements(file.sql)) {
          try {
            await tx.query(statement);
          } catch (error) {
            throw new MigrationError(`migration ${file.name} failed: ${(error as Error).message}`);
          }
        }
        await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file.name]);
        applied.push(file.name);
      }
      return applied;
    },
    { queryTimeoutMs: 0 },
  );
}

/**
 * Applies the ClickHouse migrations not yet recorded. ClickHouse has no transactions, so each
 * statement must be idempotent (IF NOT EXISTS): a migration interrupted half-way is simply re-run.
 * On a cluster (ch.cluster) every statement runs as its cluster DDL (src/store/clusterDdl.ts).
 */
export async function migrateClickHouse(ch: ClickHouse, folder = path.join(packageRoot, 'clickhouse')): Promise<string[]> {
  const files = await readClickHouseMigrations(folder, ch.cluster);
  await ch.client.command({ query: migrationsTableDdl(ch.cluster) });
  const result = await ch.client.query({ query: 'SELECT DISTINCT name FROM schema_migrations', format: 'JSONEachRow' });
  const done = new Set((await result.json<{ name: string }>()).map((row) => row.name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    for (const statement of file.statements) {
      try {
        await ch.client.command({ query: statement });
      } catch (error) {
        throw new MigrationError(`migration clickhouse/${file.name} failed: ${(error as Error).message}`);
      }
    }
    await ch.client.insert({ table: 'schema_migrations', values: [{ name: file.name }], format: 'JSONEachRow' });
    applied.push(file.name);
  }
  return applied;
}

/**
 * The ClickHouse migrations under a Postgres advisory lock (ClickHouse has none to offer): instances
 * starting together run them one after another, and the later one finds them recorded, so a
 * backfill (INSERT ... SELECT) is not repeated. The lock's transaction does nothing else.
 */
export async function migrateClickHouseOnce(db: Postgres, ch: ClickHouse, folder?: string): Promise<string[]> {
  return withAdvisoryLock(db, ADVISORY_LOCKS.clickhouseMigrations, () => migrateClickHouse(ch, folder));
}

/**
 * The statements of every ClickHouse migration, in order; on a cluster as cluster DDL. Every file
 * is read and converted, applied or not: a later migration's tables are known from the earlier ones.
 */
export async function readClickHouseMigrations(folder: string, cluster?: ClusterTarget): Promise<Array<{ name: string; statements: string[] }>> {
  const tables: ClusterTables = new Set();
  return (await readMigrationFiles(folder)).map((file) => {
    const statements = splitStatements(file.sql);
    return { name: file.name, statements: cluster ? clusterStatements(statements, cluster, tables) : statements };
  });
}

/**
 * The table recording applied migrations. On a cluster it is one replicated table shared by every
 * server of every shard (its path has no {shard}; a replica is named by shard and replica), so any
 * server the load balancer picks knows what ran. It is read locally, not through a Distributed table.
 */
export function migrationsTableDdl(cluster?: ClusterTarget): string {
  const columns = "(name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))";
  if (!cluster) return `CREATE TABLE IF NOT EXISTS schema_migrations ${columns} ENGINE = ReplacingMergeTree ORDER BY name`;
  return `CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER ${cluster.name} ${columns}
          ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all-shards/{database}/{table}', '{shard}-{replica}') ORDER BY name`;
}

/**
 * Splits a file into statements at semicolons that end a line. Plain SQL only: a statement whose
 * body needs a line-ending semicolon (a plpgsql function) keeps it inside $$ quotes.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let inDollarQuote = false;
  for (const line of sql.split('\n')) {
    const trimmed = line.trim();
    if (!inDollarQuote && (trimmed.startsWith('--') || trimmed === '')) continue;
    current += line + '\n';
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inDollarQuote = !inDollarQuote;
    if (!inDollarQuote && trimmed.endsWith(';')) {
      statements.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  if (current.trim() !== '') statements.push(current.trim().replace(/;$/, ''));
  return statements;
}
