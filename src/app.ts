import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AppDeps, FeatureDeps } from './featureDeps.js';
import { registerErrorHandling } from './http/errors.js';
import { registerJsonParser } from './http/jsonBody.js';
import { refuseUnreadQueries } from './http/queryParams.js';
import { requestIdOf } from './http/requestId.js';
import { clientErrorHandler, frameworkErrorHandler } from './http/frameworkErrors.js';
import { healthRoutes } from './http/healthRoutes.js';
import { proxyTrustWarning } from './http/proxyTrustWarning.js';
import { velocityLimitsWarning } from './tracking/velocityLimitsWarning.js';
import { cachedProxyTrust } from './http/proxyTrust.js';
import { clientAddressOf } from './http/clientAddress.js';
import { defaultMaxConnections, descriptorLimit } from './http/connectionLimit.js';
import { openapiRoute } from './http/openapiRoute.js';
import { adminRoutes } from './admin/adminRoutes.js';
import { managementRoutes } from './management/managementRoutes.js';
import { reportingRoutes } from './reporting/reportingRoutes.js';
import { servingRoutes } from './serving/servingRoutes.js';
import { trackingRoutes } from './tracking/trackingRoutes.js';
import { sendPixel } from './tracking/trackingLinkRoutes.js';
import { IMPRESSION_PATH } from './tracking/trackingLinks.js';
import { publisherKitRoutes } from './sdk/publisherKitRoutes.js';
import { consoleRoutes } from './console/consoleRoutes.js';
import { createClickHouseEventPipeline } from './tracking/clickhouseEventPipeline.js';
import { billingLock } from './tracking/billingLock.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { registerMetrics } from './http/metricsRoute.js';
import { StreamedDownloads } from './http/streamedDownloads.js';
import { IndexedDestinations } from './serving/indexedDestinations.js';
import { ServingIndexRefresh } from './serving/servingIndexRefresh.js';
import { placementsRoutes } from './placements/placementsRoutes.js';
import { PLACEMENT_ID_MAX_LENGTH } from './placements/placementSchemas.js';
import { analyzeChangedTables } from './store/embeddedStatistics.js';
import { runSoonAfterListening, startPeriodicTask } from './periodicTask.js';
import { loadTrafficClassifier } from './ivt/trafficClassifier.js';

/** How often embedded PGlite's tables are checked for statistics to gather (autovacuum's naptime). */
const EMBEDDED_ANALYZE_MS = 60_000;
/** The first check, after listening: not before, so it does not delay the start (it holds the event loop). */
const EMBEDDED_FIRST_ANALYZE_MS = 1_000;

/**
 * Builds the whole service on the stores it is given. No I/O at import time: tests build it on
 * embedded engines or a Postgres server, server.ts builds it once and listens. Closing the app
 * stops background work and flushes accepted events; the caller closes the stores after.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  // fastify accepts a hop count too, which its types do not list. A list is compiled here, with
  // each address's verdict remembered (proxyTrust.ts).
  const trustProxy = Array.isArray(config.TRUST_PROXY) ? cachedProxyTrust(config.TRUST_PROXY) : config.TRUST_PROXY;
  const app = Fastify({
    logger: deps.logger ?? false,
    trustProxy: trustProxy as FastifyServerOptions['trustProxy'],
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A request must have arrived whole within this (a body trickling in a byte every few seconds
    // held its connection for good): Node answers it through clientErrorHandler, 408
    // request_timeout. Only the request's arrival is timed, never the answer. The headers are timed
    // on their own (HEADERS_TIMEOUT_MS: a client trickling a header line every 10 s held its
    // connection, one descriptor, for Node's 60 s). Node checks its connections at an interval:
    // a fifth of the shorter timeout, so either is honoured within 20 %. Neither may be longer than
    // the whole. Idle keep-alive connections are fastify's keepAliveTimeout (72 s, longer than
    // load balancers' 60 s idle timeout, so a reused connection is not closed under them).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.ceil(Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS) / 5),
    },
    // A longer segment cannot be an id that exists: 404 before any route runs (src/http/frameworkErrors.ts).
    routerOptions: { maxParamLength: PLACEMENT_ID_MAX_LENGTH },
    // Serving builds its whole ad index before the first request: with 100,000 line items on the
    // embedded engines that takes longer than fastify's default 10 s for a plugin to load.
    pluginTimeout: 300_000,
    genReqId: (request) => requestIdOf(request.headers),
    requestIdHeader: false,
    frameworkErrors: frameworkErrorHandler({ prefix: IMPRESSION_PATH, send: sendPixel }),
    clientErrorHandler,
  });
  // Each connection is a descriptor: past the cap Node closes new ones at once, so the stores keep theirs.
  app.server.maxConnections = config.MAX_CONNECTIONS ?? defaultMaxConnections(descriptorLimit());
  const proxyWarning = proxyTrustWarning(config.TRUST_PROXY);
  if (proxyWarning) app.log.warn({ TRUST_PROXY: config.TRUST_PROXY }, proxyWarning);
  const velocityWarning = velocityLimitsWarning(config);
  if (velocityWarning) app.log.warn(velocityWarning);
  // A callback hook: an async one costs every response a promise and a turn of the microtask queue.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerErrorHandling(app);
  registerJsonParser(app);
  refuseUnreadQueries(app);

  // Built in a worker thread while the rest of the start (the ad index above all) goes on here.
  const traffic = loadTrafficClassifier(config, (why) => app.log.warn(why));
  // Awaited by tracking; a failure (a bad CIDR file) fails the start there, not as an unhandled rejection before.
  traffic.catch(() => undefined);
  const claim = deps.embeddedClickHouseClaim;
  const events = await createClickHouseEventPipeline({
    config,
    ch: deps.ch,
    log: app.log,
    billing: billingLock(deps.db),
    mayAccept: claim && (() => claim.keepsEvents()),
  });
  app.addHook('onClose', async () => events.close());
  const downloads = new StreamedDownloads(config.DOWNLOAD_STALL_TIMEOUT_MS, config.MAX_DOWNLOADS_PER_OWNER);
  const metrics = createMetrics(events, downloads);
  registerMetrics(app, metrics);
  const features: FeatureDeps = {
    ...deps,
    events,
    metrics,
    downloads,
    indexedDestinations: new IndexedDestinations(config.TRACKING_LINK_TTL_SECONDS * 1000),
    servingIndex: new ServingIndexRefresh(),
    traffic,
    clientAddress: clientAddressOf(trustProxy),
  };

  if (deps.db.kind === 'embedded') {
    // No autovacuum in PGlite (see embeddedStatistics.ts): a first run a second after listening, then every minute.
    const analyze = async () => {
      const started = performance.now();
      const tables = await analyzeChangedTables(deps.db);
      if (tables.length > 0) app.log.info({ tables, ms: Math.round(performance.now() - started) }, 'gathered planner statistics of embedded Postgres');
    };
    const statistics = startPeriodicTask('embedded statistics', EMBEDDED_ANALYZE_MS, analyze, app.log);
    runSoonAfterListening(app, statistics, EMBEDDED_FIRST_ANALYZE_MS);
    app.addHook('onClose', () => statistics.stop());
  }

  try {
    await app.register(healthRoutes, features);
    await app.register(openapiRoute);
    await app.register(adminRoutes, { db: deps.db, adminToken: deps.secrets.adminToken });
    await app.register(managementRoutes, features);
    await app.register(reportingRoutes, features);
    await app.register(servingRoutes, features);
    await app.register(placementsRoutes, features);
    await app.register(trackingRoutes, features);
    await app.register(publisherKitRoutes, features);
    await app.register(consoleRoutes, { dir: deps.consoleDir });
  } catch (error) {
    // A start that fails here (a bad CIDR feed, say) stops what already runs and releases the spool's lock.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
