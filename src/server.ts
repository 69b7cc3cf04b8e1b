import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { StartupError, openStores } from './runtime.js';
import { adminTokenFile, resolveSecrets, type ResolvedSecrets } from './secrets.js';
import { loggerOptions } from './http/requestLogging.js';

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
  const stores = await openStores(config);
  const secrets = resolveSecrets(config);
  const app = await buildApp({ config, db: stores.db, ch: stores.ch, secrets, logger });
  for (const file of secrets.generated) app.log.info({ file }, 'generated a secret; it is kept in this file (mode 0600)');
  if (!config.ADMIN_TOKEN) app.log.info({ file: adminTokenFile(config) }, 'admin token location');
  const close = async () => {
    await app.close();
    await stores.close();
  };
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    await close();
    throw listenFailure(config, error as NodeJS.ErrnoException);
  }
  return { app, secrets, close };
}

/** The operator's one line for an address the service cannot take (in use, not on this host, privileged). */
function listenFailure(config: Config, error: NodeJS.ErrnoException): Error {
  if (!error.code) return error;
  const why = error.code === 'EADDRINUSE' ? 'EADDRINUSE, another process is listening there' : error.code;
  return new StartupError(`cannot listen on HOST ${config.HOST} PORT ${config.PORT}: ${why}`);
}

/**
 * `adsvc serve`: runs the service until SIGTERM/SIGINT, then stops accepting, finishes in-flight
 * requests, flushes buffered events, closes the stores and exits 0.
 */
export async function serve(config: Config): Promise<void> {
  const service = await startService(config, loggerOptions(config.LOG_LEVEL));
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
