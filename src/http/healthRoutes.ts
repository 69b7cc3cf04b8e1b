import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';

const STORE_CHECK_TIMEOUT_MS = 2000;

/** 200 only when both stores answer within the timeout; 503 otherwise, so a load balancer stops routing here. */
export async function healthRoutes(app: FastifyInstance, { db, ch }: FeatureDeps): Promise<void> {
  app.get('/healthz', async (request, reply) => {
    const [postgres, clickhouse] = await Promise.all([
      withTimeout(db.query('SELECT 1').then(() => true)),
      withTimeout(ch.client.ping().then((result) => result.success)),
    ]);
    if (postgres && clickhouse) return { status: 'ok' };
    request.log.warn({ postgres, clickhouse }, 'health check failed');
    return reply.code(503).send({
      status: 'unavailable',
      checks: { postgres: postgres ? 'ok' : 'failing', clickhouse: clickhouse ? 'ok' : 'failing' },
    });
  });
}

async function withTimeout(check: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
