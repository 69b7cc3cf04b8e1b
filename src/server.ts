import type { Config } from './config.js';
import { buildApp } from './app.js';
import { openStores } from './runtime.js';
import { resolveSecrets } from './secrets.js';
import { loggerOptions } from './http/requestLogging.js';

/**
 * The only place that listens and handles signals. SIGTERM/SIGINT: stop accepting, finish
 * in-flight requests, flush buffered events, close the stores, exit 0.
 */
export async function serve(config: Config): Promise<void> {
  const stores = await openStores(config);
  const secrets = resolveSecrets(config);
  const app = await buildApp({
    config,
    db: stores.db,
    ch: stores.ch,
    secrets,
    logger: loggerOptions(config.LOG_LEVEL),
  });
  for (const file of secrets.generated) app.log.info({ file }, 'generated a secret; it is kept in this file (mode 0600)');
  if (!config.ADMIN_TOKEN) app.log.info({ file: `${config.DATA_DIR}/admin-token` }, 'admin token location');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    try {
      await app.close();
      await stores.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.PORT, host: config.HOST });
}
