import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';

const STORE_CHECK_TIMEOUT_MS = 2000;
const WRITABLE_CHECK = `SELECT current_setting('transaction_read_only') = 'off' AS writable`;

type CheckResult = 'ok' | 'failing';

/**
 * 200 only when every check passes; 503 otherwise, naming the failing checks, so a load balancer
 * stops routing here and an operator sees why: both stores answer within the timeout, the spool
 * takes a real write, and the events not yet in ClickHouse are within HEALTH_EVENT_BACKLOG_* (a
 * growing or ageing backlog means writes to ClickHouse are failing while pixels still answer 2xx).
 * On a Postgres server with embedded ClickHouse, also that no other instance has taken its claim on
 * the database (embeddedClickHouseClaim.ts): then tracking answers 503, so it is no place to route.
 */
export async function healthRoutes(app: FastifyInstance, { db, ch, events, config, embeddedClickHouseClaim }: FeatureDeps): Promise<void> {
  app.get('/healthz', async (request, reply) => {
    const [postgres, clickhouse] = await Promise.all([
      // Writable, not only answering: an old primary after a failover (or a server put read-only)
      // answers reads but refuses every write, so no place to route management or billing to.
      withTimeout(db.query<{ writable: boolean }>(WRITABLE_CHECK).then((result) => result.rows[0]?.writable === true)),
      withTimeout(ch.client.ping().then((result) => result.success)),
    ]);
    const stats = events.stats();
    const oldestAgeSeconds = stats.oldestPendingAt === undefined ? 0 : Math.max(0, Math.floor((Date.now() - stats.oldestPendingAt) / 1000));
    // A crash's insert set aside (refused for its rows) is shown, not judged: routing elsewhere cannot help it.
    const backlogOk = stats.backlogRows - stats.setAsideRows <= config.HEALTH_EVENT_BACKLOG_MAX_ROWS && oldestAgeSeconds <= config.HEALTH_EVENT_BACKLOG_MAX_AGE_SECONDS;
    const checks: Record<string, CheckResult> = {
      postgres: verdict(postgres),
      clickhouse: verdict(clickhouse),
      spool: verdict(events.spoolWritable()),
      event_backlog: verdict(backlogOk),
      ...(embeddedClickHouseClaim && { clickhouse_claim: verdict(embeddedClickHouseClaim.keepsEvents()) }),
    };
    const body = {
      status: Object.values(checks).every((check) => check === 'ok') ? 'ok' : 'unavailable',
      checks,
      event_backlog: {
        rows: stats.backlogRows,
        set_aside_rows: stats.setAsideRows,
        oldest_age_seconds: oldestAgeSeconds,
        max_rows: config.HEALTH_EVENT_BACKLOG_MAX_ROWS,
        max_age_seconds: config.HEALTH_EVENT_BACKLOG_MAX_AGE_SECONDS,
      },
    };
    if (body.status === 'ok') return body;
    request.log.warn({ checks, event_backlog: body.event_backlog, spool_error: stats.spoolFailure }, 'health check failed');
    return reply.code(503).send(body);
  });
}

function verdict(passed: boolean): CheckResult {
  return passed ? 'ok' : 'failing';
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
