import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

/**
 * GET /metrics in Prometheus text format, and the per-route request histogram behind it. Like
 * /healthz it needs no token: it carries service-wide counts only, no tenant's data.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  // A callback hook, not an async one: no promise per response.
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label, so a scan of random paths cannot grow the series without limit.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
