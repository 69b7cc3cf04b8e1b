import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClusterTarget } from './clusterDdl.js';
import { withUnavailableQueries } from './clickhouseUnavailable.js';
import { aroundClientCalls } from './clickhouseCalls.js';
import { lockDirectory } from './directoryLock.js';
import { WrittenEventDays, withWrittenEventDays } from './writtenEventDays.js';
import { syncFileSystemOf, withDurableWrites } from './durableWrites.js';
import { forgetBlocksWithoutParts, type ForgottenBlocks } from './deduplicationLogRepair.js';

/** The nice value of embedded ClickHouse's merge threads while they merge (0 is this process's; 19 the lowest priority). */
const MERGE_NICE = 10;

/** The optional chdb package's modules, by a string variable: see ChdbModules. */
const CHDB_MODULES: { engine: string; connection: string } = { engine: 'chdb', connection: 'chdb/connection' };

/**
 * What the embedded store uses of the optional chdb package, declared here so that it is typed where
 * chdb is not installed (the image's build stage, rev44 R8: test/integration/imageBuildStage.test.ts)
 * as where it is; test/unit/chdbModules.test.ts checks that the installed package has it.
 */
export interface ChdbModules {
  engine: { Session: new (path: string, options: { connectionArgs: string[] }) => { close(): void } };
  connection: { createChdbConnection(options: { path: string }): unknown };
}

export interface ClickHouseOptions {
  url?: string;
  user?: string;
  password?: string;
  database: string;
  /** Create the database with the Replicated engine (self-managed clusters). */
  replicated?: boolean;
  /** A cluster in the servers' remote_servers: migrations create sharded, replicated tables on it (src/store/clusterDdl.ts). */
  cluster?: string;
  dataDir: string;
  /** Embedded only: each write returns once its files are on disk (EVENT_SPOOL_FSYNC; durableWrites.ts). */
  durableWrites?: boolean;
}

export interface ClickHouse {
  client: ClickHouseClient;
  readonly kind: 'server' | 'embedded';
  /** Set on a cluster (server mode only): the migrations run as cluster DDL. */
  readonly cluster?: ClusterTarget;
  /** Embedded only: the blocks a kill -9 left recorded without their part, forgotten before the engine opened (deduplicationLogRepair.ts). */
  readonly forgottenBlocks?: ForgottenBlocks[];
  /** Embedded only: which days of events each write changed (writtenEventDays.ts); every write is this process's own. */
  readonly writtenEventDays?: WrittenEventDays;
  close(): Promise<void>;
}

/**
 * HTTP to a ClickHouse server or cluster when CLICKHOUSE_URL is set; otherwise the same client on
 * embedded chdb with its files in DATA_DIR/clickhouse. Queries use unqualified table names: on a
 * server the client's database applies; chdb ignores that option and works in its `default` database.
 * chdb also applies a call's clickhouse_settings to its whole session (they stay set for later
 * calls): an insert into a table with a deduplication window must always pass its own
 * insert_deduplication_token, and a query's limits belong in its SQL (`SETTINGS ...`).
 * The client's own logger is off: it writes to stderr, and every failure reaches our code, which
 * logs it with pino. A query ClickHouse cannot answer now rejects as EventStoreUnavailableError (503).
 */
export async function openClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  if (options.url) {
    await ensureServerDatabase(options);
    const client = createClient({
      url: options.url,
      username: options.user ?? 'default',
      password: options.password ?? '',
      database: options.database,
      request_timeout: 30_000,
      log: { level: ClickHouseLogLevel.OFF },
      clickhouse_settings: {
        output_format_json_quote_64bit_integers: 0,
        // On a cluster an insert into a Distributed table returns once every shard has its rows (not
        // when they are queued on the receiving server): the spool is dropped only after that, and
        // another instance's lookup of a serve sees the event at once. Queries read every shard: the
        // rows views write into tables without campaign_id sit on their campaign's shard, not where
        // those tables' sharding keys would send a direct insert (src/store/clusterDdl.ts).
        ...(options.cluster ? { insert_distributed_sync: 1, optimize_skip_unused_shards: 0 } : {}),
      },
    });
    const cluster = options.cluster ? { name: options.cluster, database: options.database } : undefined;
    return { client: withUnavailableQueries(client), kind: 'server', cluster, close: () => client.close() };
  }
  const directory = path.join(options.dataDir, 'clickhouse');
  await mkdir(directory, { recursive: true });
  // The repair below must never touch the files of an engine another process has open.
  const release = lockDirectory(directory, { name: 'the embedded ClickHouse', harm: "chdb's files are one process's own" });
  try {
    const forgottenBlocks = forgetBlocksWithoutParts(directory);
    // chdb is an optional dependency, loaded only here so that server mode never needs its native library.
    // The Docker image (server mode) is built without it (npm ci --omit=optional), where `import('chdb')`
    // could not be resolved (TS2307): named by a string variable, the import is typed by ChdbModules.
    const loaded = await Promise.all([import(CHDB_MODULES.engine), import(CHDB_MODULES.connection)]);
    const [{ Session }, { createChdbConnection }] = loaded as [ChdbModules['engine'], ChdbModules['connection']];
    // The first connection to a directory starts the process's engine with its arguments; the
    // client's connection (which takes none) then shares that engine. The engine's background merges
    // run at a lower CPU priority than this process's own thread: on a small machine two merge
    // threads took the cores from the thread that answers requests (a repeated 1,000-row report
    // 15 -> 50 ms p50 while a copy's months merged; bench/README "Report: session 36"). The threads
    // still get the CPU nothing else wants, and a share of a busy one.
    const engine = new Session(directory, { connectionArgs: [`--os_threads_nice_value_merge_mutate=${MERGE_NICE}`] });
    let client: ClickHouseClient;
    try {
      client = createClient({ connection: createChdbConnection({ path: directory }) } as never);
    } catch (error) {
      engine.close();
      throw error;
    }
    const running = closingAfterRunningCalls(client);
    try {
      // A sync that cannot work (no `sync --file-system` here) stops the start rather than every write.
      if (options.durableWrites) await syncFileSystemOf(directory);
    } catch (error) {
      await client.close();
      engine.close();
      throw error;
    }
    const writtenEventDays = new WrittenEventDays();
    return {
      client: withWrittenEventDays(withUnavailableQueries(options.durableWrites ? withDurableWrites(running.client, directory) : running.client), writtenEventDays),
      kind: 'embedded',
      forgottenBlocks,
      writtenEventDays,
      close: async () => {
        try {
          await running.close();
        } finally {
          try {
            engine.close();
          } finally {
            release();
          }
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The embedded client, whose close waits for the calls running in the engine and refuses new ones
 * (a 503 for a request, as any closed store): chdb's engine closed under a running query ended the
 * process in a segfault (exit 139) or hung it at exit (try39 F9), so no caller has to wait for its
 * own queries before the stores close. A query's answer is read whole before its call resolves
 * (chdb/connection), so a resolved call has nothing left in the engine.
 */
function closingAfterRunningCalls(client: ClickHouseClient): { client: ClickHouseClient; close(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  let closing = false;
  const counted = aroundClientCalls(client, ['query', 'command', 'insert', 'exec', 'ping'], (call) => {
    if (closing) return Promise.reject(new Error('the embedded ClickHouse is closed'));
    const result = call();
    const ended = result.catch(() => undefined);
    running.add(ended);
    void ended.then(() => running.delete(ended));
    return result;
  });
  return {
    client: counted,
    close: async () => {
      closing = true;
      await Promise.all(running);
      await client.close();
    },
  };
}

async function ensureServerDatabase(options: ClickHouseOptions): Promise<void> {
  const admin = createClient({
    url: options.url,
    username: options.user ?? 'default',
    password: options.password ?? '',
    request_timeout: 10_000,
    log: { level: ClickHouseLogLevel.OFF },
  });
  try {
    await admin.command({ query: createDatabaseDdl(options) });
  } finally {
    await admin.close();
  }
}

/** The database's DDL: on every server of a cluster, or as a Replicated database, or plain. */
export function createDatabaseDdl(options: Pick<ClickHouseOptions, 'database' | 'replicated' | 'cluster'>): string {
  // The names are checked identifiers (config), so they can stand in the DDL; ClickHouse has no parameter for them.
  const onCluster = options.cluster ? ` ON CLUSTER ${options.cluster}` : '';
  const engine = options.replicated ? ` ENGINE = Replicated('/clickhouse/databases/${options.database}', '{shard}', '{replica}')` : '';
  return `CREATE DATABASE IF NOT EXISTS ${options.database}${onCluster}${engine}`;
}
