import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { StartupError, openStores } from './runtime.js';
import { adminTokenFile, resolveSecrets, type ResolvedSecrets } from './secrets.js';
import { loggerOptions } from './http/requestLogging.js';
import { CidrFileError, readCidrFile } from './ivt/cidrFiles.js';
import { extraCidrFiles } from './ivt/trafficClassifier.js';
import { startProcessWatchdog } from './processWatchdog.js';
import { preloadSemanticMatching } from './semantic/loadSemanticMatching.js';
import { catalogSnapshotDirectory, readBaseAhead } from './serving/catalogSnapshot.js';
import { EmbeddedClickHouseClaim, SHARE_ONE_CLICKHOUSE } from './store/embeddedClickHouseClaim.js';

export interface RunningService {
  app: FastifyInstance;
  secrets: ResolvedSecrets;
  /** Stops accepting, finishes in-flight requests, flushes buffered events, closes the stores. */
  close(): Promise<void>;
}

/**
 * The one way the service starts, for `adsvc serve` and the demo alike: open and migrate the
 * stores, resolve the secrets, build the app and listen on config.HOST:config.PORT.
 */
export async function startService(config: Config, logger: FastifyServerOptions['logger']): Promise<RunningService> {
  checkExtraCidrFiles(config);
  // In a worker thread while the stores open: serving's index build needs the model (loadSemanticMatching).
  preloadSemanticMatching(config);
  const stores = await openStores(config);
  const claim = await claimEmbeddedClickHouse(config).catch(async (error: unknown) => {
    await stores.close().catch(() => undefined);
    throw error;
  });
  // Read on the thread pool from now, where the stores' directory locks are held: begun by
  // servingRoutes, the read (0.1-0.15 s at 100,000 line items) was still going when the index needed it.
  const snapshotDir = catalogSnapshotDirectory(config);
  const snapshotBase = snapshotDir ? readBaseAhead(snapshotDir) : undefined;
  let app: FastifyInstance;
  let secrets: ResolvedSecrets;
  try {
    secrets = resolveSecrets(config);
    app = await buildApp({ config, db: stores.db, ch: stores.ch, secrets, logger, snapshotBase, embeddedClickHouseClaim: claim });
  } catch (error) {
    // The stores' directory locks go with them, so the next start does not find them held.
    await Promise.allSettled([stores.close(), claim?.close()]);
    throw startFailure(error);
  }
  for (const file of secrets.generated) app.log.info({ file }, 'generated a secret; it is kept in this file (mode 0600)');
  for (const { table, part } of stores.ch.forgottenBlocks ?? []) app.log.warn({ table, part }, 'a crash left an insert recorded in ClickHouse without its part; the spool replays it');
  if (!config.ADMIN_TOKEN) app.log.info({ file: adminTokenFile(config) }, 'admin token location');
  claim?.logTo(app.log);
  const close = async () => {
    const cut = setTimeout(() => cutLingeringConnections(app, config.SHUTDOWN_GRACE_MS), config.SHUTDOWN_GRACE_MS);
    // fastify closes the keep-alive connections idle when the stop begins, once: one whose request was
    // in flight then stayed open after its answer until the grace cut it, so a stop under traffic (a
    // postback, a load balancer's connections) took the whole SHUTDOWN_GRACE_MS, past Docker's 10 s
    // before its SIGKILL (try44). Those that became idle are closed as they do. A request that a
    // client sends on one at that very moment is cut unanswered, as at the stop's own close of the
    // idle ones: nothing of it was done, and the client sends it again elsewhere.
    const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_CLOSE_INTERVAL_MS);
    try {
      await app.close();
    } finally {
      clearTimeout(cut);
      clearInterval(idle);
    }
    await Promise.allSettled([stores.close(), claim?.close()]);
  };
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await close();
    throw listenFailure(config, error as NodeJS.ErrnoException);
  }
  return { app, secrets, close };
}

/** How often a stop closes the keep-alive connections whose requests have been answered since it began. */
const IDLE_CLOSE_INTERVAL_MS = 100;

/**
 * A stop waits for the requests in flight, but not for ever: a download whose client stopped reading
 * (a stalled reporting tool), or an upload that stopped arriving, held a SIGTERM's exit for as long
 * as the client stayed (149 s seen), while orchestrators SIGKILL a stop after 10-90 s, leaving the
 * buffered events in the spool of an instance being retired. Past the grace the connections still
 * open are closed (a download cut so is an incomplete body, as a cut export always is), then the
 * events are written and the stores closed.
 */
function cutLingeringConnections(app: FastifyInstance, graceMs: number): void {
  app.log.warn({ graceMs }, 'requests still in flight after SHUTDOWN_GRACE_MS (a client that stopped reading or sending); closing their connections');
  app.server.closeAllConnections();
}

/**
 * On a Postgres server with embedded ClickHouse: the claim that no other such instance runs on the
 * database (embeddedClickHouseClaim.ts), or the start stops with the fix. None on embedded Postgres
 * (one process's own) or with a ClickHouse server (which the instances share).
 */
async function claimEmbeddedClickHouse(config: Config): Promise<EmbeddedClickHouseClaim | undefined> {
  if (!config.DATABASE_URL || config.CLICKHOUSE_URL) return undefined;
  const claim = await EmbeddedClickHouseClaim.take(config.DATABASE_URL).catch((error: unknown) => {
    throw new StartupError(`cannot take the embedded ClickHouse claim on DATABASE_URL: ${(error as Error).message}`);
  });
  if (claim === undefined) {
    throw new StartupError(`another instance with embedded ClickHouse (chdb) is running on this DATABASE_URL's database: ${SHARE_ONE_CLICKHOUSE}`);
  }
  return claim;
}

/**
 * The operator's CIDR files are read (and read again, with the feeds in DATA_DIR/ivt, by the worker
 * that builds the tables during the start): a missing file or a bad line stops the start with one
 * line before anything is created in DATA_DIR, instead of after the stores are open.
 */
function checkExtraCidrFiles(config: Config): void {
  for (const file of extraCidrFiles(config.IVT_EXTRA_CIDR_FILES)) {
    try {
      readCidrFile(file);
    } catch (error) {
      throw new StartupError(`IVT_EXTRA_CIDR_FILES: ${(error as Error).message}`);
    }
  }
}

/**
 * The operator's one line, not a stack, for a start that failed on a file: a bad range feed in
 * DATA_DIR/ivt (the message names its file and line), or a file system call under DATA_DIR.
 */
function startFailure(error: unknown): unknown {
  if (error instanceof CidrFileError) return new StartupError(error.message);
  const { code, syscall, path: file } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code === 'string' && typeof syscall === 'string' && typeof file === 'string') return new StartupError(`cannot ${syscall} ${file}: ${code}`);
  return error;
}

/** The operator's one line for an address the service cannot take (in use, not on this host, privileged). */
function listenFailure(config: Config, error: NodeJS.ErrnoException): Error {
  if (!error.code) return error;
  const why = error.code === 'EADDRINUSE' ? 'EADDRINUSE, another process is listening there' : error.code;
  return new StartupError(`cannot listen on HOST ${config.HOST} PORT ${config.PORT}: ${why}`);
}

/**
 * `adsvc serve`: runs the service until SIGTERM/SIGINT, then stops accepting, finishes in-flight
 * requests, flushes buffered events, closes the stores and exits 0. A process that cannot go on
 * (a fatal signal, an event loop that stopped) ends instead of hanging (processWatchdog.ts).
 */
export async function serve(config: Config): Promise<void> {
  const service = await startService(config, loggerOptions(config.LOG_LEVEL));
  startProcessWatchdog(config.WATCHDOG_TIMEOUT_MS);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    service.app.log.info({ signal }, 'shutting down');
    try {
      await service.close();
      process.exit(0);
    } catch (error) {
      service.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
