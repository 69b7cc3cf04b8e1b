import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { withBoundPort } from '../config.js';
import type { FeatureDeps } from '../featureDeps.js';
import { ApiError, parseInput } from '../http/errors.js';
import { bearerToken } from '../http/bearerToken.js';
import { endOfTurn } from '../http/endOfTurn.js';
import { lazyChildLogger } from '../http/lazyRequestLogger.js';
import { answerBeforeFastify, JSON_CONTENT_TYPE } from '../http/answerBeforeFastify.js';
import { jsonBodyReader } from '../http/jsonBody.js';
import { convertToUsd } from '../money/usdRates.js';
import { createUserAgentClassifier } from '../ivt/userAgentClassifier.js';
import { AdIndexRefresher } from './adIndexRefresher.js';
import { catalogSnapshotDirectory, readBaseAhead } from './catalogSnapshot.js';
import { billedLineItem, publisherOfToken, type IndexBuildDeps } from './adIndex.js';
import { loadRetiredLineItems } from './retiredLineItems.js';
import { SpendPacing, dailyAllowanceShare } from './spendPacing.js';
import { FrequencyCounts } from './frequencyCounts.js';
import { userKeyer } from './userKey.js';
import { countryOfAddress, loadCountryTables } from '../geo/countryOfAddress.js';
import { DeliveryLearning } from './deliveryLearning.js';
import { startPeriodicTask } from '../periodicTask.js';
import { completeEndedFlights } from '../management/campaignRepository.js';
import { selectAd, type HeldBack } from './selectAd.js';
import { adPayload, adResponseJson, signAd } from './adPayload.js';
import { SERVE_BODY_LIMIT_BYTES, serveRequestBody } from './serveSchemas.js';
import { ServeCounts } from './serveCounts.js';
import { SERVE_PATH, directServe } from './directServe.js';
import { loadSemanticMatching } from '../semantic/loadSemanticMatching.js';
import { matchPreviewRoute } from './matchPreviewRoute.js';
import type { BrandSafetyVeto } from '../semantic/brandSafety.js';

const NO_AD = { ad: null } as const;
/** How long after the listen the catalog snapshot's base of a full read is written (see the onListen hook). */
const SNAPSHOT_WRITE_DELAY_MS = 1_000;
/**
 * The body schema with zod's generated fast path: 0.16 us a serve instead of 0.96. A body the fast
 * path refuses goes to the runtime parser, so errors read exactly as before.
 */
const compiledServeRequestBody = z.compile(serveRequestBody);

/**
 * POST /v1/serve from an in-memory ad index (no database query on the serve path), the background
 * work that keeps it current (index refresh, pacing sync, CTR learning, flight sweep). Provides
 * deps.servingIndex, so certification changes (src/placements) are served from the next request.
 */
export async function servingRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const { config, db, ch, events, secrets, metrics, indexedDestinations, servingIndex } = deps;
  const log = app.log;

  // Before the first serve or pixel: geo targeting and event countries look addresses up. Built
  // in a worker thread while the index is built here, and awaited with the other start work below.
  const countryTables = loadCountryTables((why) => log.warn(why));
  const pacing = new SpendPacing(ch, events);
  const learning = new DeliveryLearning(ch);
  const frequency = new FrequencyCounts(ch, events);
  // Before this run's events: a crashed run's spooled events are the first of the unwritten ones, and count
  // in spend and cap counts until written (they are replayed alongside the first syncs).
  events.forEachRecovered((event) => {
    pacing.record(event);
    frequency.recordRecovered(event);
  });
  // Three listeners, not one that calls all three: the pipeline isolates each (a throw in one is
  // logged and counted), so pacing failing does not leave caps and learning short of the event too.
  events.onAccepted((event, written) => pacing.record(event, written));
  events.onAccepted((event, written) => frequency.record(event, written));
  events.onAccepted((event) => learning.record(event));
  // Where spend and caps are judged, the counters are of the judgement's UTC day, month and cap
  // windows: each serve rolls them (below), and billing through indexedDestinations.billedLineItem.
  const rollCounters = (nowMs: number) => {
    pacing.roll(nowMs);
    frequency.roll(nowMs);
  };
  indexedDestinations.rollCountersWith(rollCounters);
  indexedDestinations.readSpendWith((lineItems, fromDay) => pacing.billedSpend(lineItems, fromDay));
  indexedDestinations.settleRepeatsWith(pacing);

  // Begun now, to go on while the catalog is read: the snapshot's read on the thread pool (begun by
  // server.ts once the stores opened, when started as a service), the stats' query in ClickHouse, the
  // word vectors in a worker thread (begun by server.ts before the stores opened). The index's build waits for all three.
  const snapshotDir = catalogSnapshotDirectory(config);
  const snapshotBase = snapshotDir ? (deps.snapshotBase ?? readBaseAhead(snapshotDir)) : undefined;
  const learned = learning.preload().catch((error: unknown) => log.error({ err: error }, 'initial selection stats refresh failed'));
  const build: IndexBuildDeps = {
    spendCounterFor: (id) => pacing.counterFor(id),
    userCountsFor: (id, per) => frequency.countsFor(id, per),
    statsFor: (id) => learning.statsFor(id),
    toUsd: convertToUsd,
    semanticClustersInWorker: log,
    // Still active but not servable (its last creative removed, its price out of range): it may have
    // left the index while its links live, when is not known, so it is kept as if it left now. One
    // this process had in its index is kept by indexedDestinations.patch or replace instead.
    unservable: (row) => indexedDestinations.keepRetired(row.id, Date.now(), () => billedLineItem(row, build)),
  };
  // A bad word vectors file fails the start at the build, as it did when it was read here.
  const semantic = loadSemanticMatching(config, log).then((loaded) => Object.assign(build, loaded));
  const beforeBuild = Promise.all([learned, semantic]);
  // Observed here too: a start that fails before the build never awaits it.
  beforeBuild.catch(() => undefined);
  const refresher = await AdIndexRefresher.start({
    db,
    refreshMs: config.INDEX_REFRESH_MS,
    notifiedRefreshMs: config.INDEX_REFRESH_NOTIFIED_MS,
    pruneMs: config.INDEX_CHANGES_PRUNE_MS,
    snapshotDir,
    snapshotBase,
    semanticOn: semantic.then((loaded) => loaded.semanticModel !== undefined, () => false),
    beforeBuild,
    build,
    onBuilt: (index, buildMs) => {
      metrics.indexLineItems.set(index.lineItems.length);
      metrics.indexRebuildSeconds.observe(buildMs / 1000);
      indexedDestinations.replace(index);
      indexedDestinations.pruneRetired();
      // Line items kept for billing after they left the index keep their spend and cap counts synced
      // (indexedDestinations.ts). Looked up there: sets of 100,000 ids made here were 30-40 ms of a start.
      pacing.retainOnly((id) => indexedDestinations.billedLineItem(id) !== undefined);
      frequency.retainOnly((id) => (indexedDestinations.billedLineItem(id)?.frequencyCap ?? null) !== null);
      // Learned CTR and CVR too: a line item paused and re-activated ranks by what it learned, not the prior.
      learning.retainOnly((id) => indexedDestinations.billedLineItem(id) !== undefined);
    },
    onPatched: (index, patch, changes, patchMs) => {
      metrics.indexLineItems.set(index.lineItems.length);
      metrics.indexChanges.inc(changes);
      metrics.indexPatchSeconds.observe(patchMs / 1000);
      indexedDestinations.patch(patch.removed, patch.added);
      const kept = new Map(patch.added.map((entry) => [entry.id, entry]));
      for (const entry of patch.removed) {
        const next = kept.get(entry.id);
        // Its spend counter, cap counts and learned CTR/CVR stay: the line item is kept for billing while its
        // links live (indexedDestinations.ts), and one re-activated meanwhile ranks by what it learned, not
        // by the prior until the next stats refresh.
        if (next && !next.frequencyCap) frequency.forget(entry.id);
      }
      for (const id of indexedDestinations.pruneRetired()) {
        pacing.forget(id);
        frequency.forget(id);
        learning.forget(id);
      }
    },
    log,
  });
  // What left the index before this process started, for the billing ceilings of the links it was
  // served with: read after the index is built, so a line item that changes meanwhile is in one or
  // the other (the index wins). Before the initial syncs below, which read their spend and counts.
  const retiredStarted = performance.now();
  const retired = await loadRetiredLineItems(db, new Date(Date.now() - config.TRACKING_LINK_TTL_SECONDS * 1000));
  for (const row of retired) indexedDestinations.keepRetired(row.id, row.left_at.getTime(), () => billedLineItem(row, build));
  if (retired.length > 0) log.info({ lineItems: retired.length, ms: Math.round(performance.now() - retiredStarted) }, 'line items that left the index within the links\' lifetime kept for billing');
  // Spend and capped users' counts before the first serve, so a restarted instance does not overspend:
  // awaited before the listen (onReady), while the other routes register meanwhile.
  const startSyncs = Promise.all([
    pacing.sync().catch((error: unknown) => log.error({ err: error }, 'initial pacing sync failed; retrying in the background')),
    frequency.sync().catch((error: unknown) => log.error({ err: error }, 'initial frequency sync failed; retrying in the background')),
    countryTables,
  ]);
  // A failure (the country tables' worker) fails the start in onReady, not as an unhandled rejection before.
  startSyncs.catch(() => undefined);
  app.addHook('onReady', async () => {
    await startSyncs;
  });
  servingIndex.provide(() => refresher.refreshNow());
  matchPreviewRoute(app, db, () => refresher.current, indexedDestinations);

  const serveCounts = new ServeCounts(ch, path.join(config.DATA_DIR, 'serve-counts'), config.EVENT_SPOOL_FSYNC, config.SERVE_COUNTS);
  const tasks = [
    startPeriodicTask('serve counts flush', config.EVENT_FLUSH_INTERVAL_MS, () => serveCounts.flush(), log),
    startPeriodicTask('pacing sync', config.PACING_SYNC_MS, () => pacing.sync(), log),
    startPeriodicTask('frequency sync', config.PACING_SYNC_MS, () => frequency.sync(), log),
    startPeriodicTask(
      'selection stats refresh',
      config.SELECTION_STATS_REFRESH_MS,
      async () => {
        await learning.refresh();
        await refresher.rerank();
      },
      log,
    ),
    // Serving already stops at ends_at (the index knows each flight); this makes it visible as
    // status completed to management and reporting.
    startPeriodicTask(
      'flight sweep',
      config.FLIGHT_SWEEP_MS,
      async () => {
        const completed = await completeEndedFlights(db);
        if (completed > 0) log.info({ campaigns: completed }, 'completed campaigns whose flight ended');
      },
      log,
    ),
  ];
  let snapshotWrites: NodeJS.Timeout | undefined;
  app.addHook('onClose', async () => {
    clearTimeout(snapshotWrites);
    await Promise.all([refresher.stop(), ...tasks.map((task) => task.stop())]);
    await serveCounts.flush().catch((error: unknown) => log.error({ err: error }, 'serve counts flush at close failed; kept on disk'));
  });

  const userAgentVerdict = createUserAgentClassifier();
  const keyUser = userKeyer(secrets.trackingSecret);
  const signing = {
    trackingSecret: secrets.trackingSecret,
    trackingBaseUrl: config.TRACKING_BASE_URL,
    linkTtlSeconds: config.TRACKING_LINK_TTL_SECONDS,
    tokenFormat: config.TRACKING_TOKEN_FORMAT,
  };
  app.addHook('onListen', async () => {
    signing.trackingBaseUrl = withBoundPort(signing.trackingBaseUrl, (app.server.address() as AddressInfo).port);
    // The catalog snapshot's base is not needed to answer: written a second after the listen, not on the
    // start's path nor under its first requests (written at once, it held them 0.1-0.2 s: bench/README.md).
    snapshotWrites = setTimeout(() => refresher.startSnapshotWrites(), SNAPSHOT_WRITE_DELAY_MS).unref();
    refresher.prepareForChanges();
  });
  app.decorateRequest('publisherId', null);

  /** The answer to a serve: an object for fastify to serialize, or an ad answer already written as JSON. */
  const answerServe = (input: unknown, publisherId: string | null): object | string => {
    const body = parseInput(compiledServeRequestBody, input);
    metrics.serveRequests.inc();
    const index = refresher.current;
    const placement = index.placements.get(body.placement_id);
    if (placement === undefined || placement.publisherId !== publisherId) {
      throw new ApiError('not_found', 'placement not found');
    }
    const nowMs = Date.now();
    rollCounters(nowMs);
    // A declared bot would only produce invalid impressions: no advertiser wants that ad shown.
    if (body.user?.user_agent && userAgentVerdict(body.user.user_agent) === 'bot') {
      serveCounts.count(body.placement_id, false, nowMs);
      return NO_AD;
    }
    const userKey = body.user?.id === undefined ? undefined : keyUser(placement.publisherId, body.user.id);
    let veto: BrandSafetyVeto | undefined;
    let heldBack: HeldBack | undefined;
    const selection = selectAd(
      index,
      body.placement_id,
      placement,
      {
        query: body.context.query,
        response: body.context.response,
        language: body.language,
        nowMs,
        evenShare: dailyAllowanceShare(nowMs),
        publisherId: placement.publisherId,
        userKey,
        country: index.countryTargeting && body.user?.ip !== undefined ? countryOfAddress(body.user.ip) : undefined,
        explain: body.explain === true,
      },
      (found) => (veto = found),
      body.explain ? (counts) => (heldBack = counts) : undefined,
    );
    serveCounts.count(body.placement_id, selection !== undefined, nowMs);
    if (selection === undefined) return body.explain ? { ...NO_AD, match: withHeldBack(noAdExplanation(veto), heldBack) } : NO_AD;
    metrics.serveFills.inc();
    const ad = signAd(selection, body.placement_id, placement.publisherId, signing, nowMs, userKey);
    const lineItem = selection.lineItem;
    pacing.served(ad.id, lineItem.spend, placement.publisherId, lineItem.model, lineItem.expectedValue, nowMs);
    if (userKey !== undefined && lineItem.frequencyCap !== null) frequency.served(lineItem.id, ad.id, userKey, nowMs);
    if (body.explain) return { ad: adPayload(ad, signing.trackingBaseUrl), match: withHeldBack(selection.match, heldBack) };
    return adResponseJson(ad, signing.trackingBaseUrl);
  };

  // The usual serve skips fastify's routing and lifecycle (directServe.ts); the route below answers the rest.
  answerBeforeFastify(
    app,
    directServe({
      bodyLimit: SERVE_BODY_LIMIT_BYTES,
      readJsonBody: jsonBodyReader(app),
      publisherOf: (token) => publisherOfToken(refresher.current, token),
      answer: answerServe,
      observe: metrics.httpDuration.observerOf(SERVE_PATH, 'POST'),
      taking: () => !logsRequests(app.log),
      log,
    }),
  );

  app.post(
    SERVE_PATH,
    {
      bodyLimit: SERVE_BODY_LIMIT_BYTES,
      // A stray parameter (a client's cache buster) must not cost a publisher its ad: nothing the
      // serve answers depends on the query, so it is taken and not read.
      config: { query: 'any' },
      // The request's child logger only once something logs at or above its level (at the usual
      // warn, nothing does on a serve): building it eagerly was about 0.4 us of every serve.
      childLoggerFactory: lazyChildLogger,
      // Authenticated before the body is read: a caller without a valid token costs no parsing. A
      // callback hook: an async one costs every serve a promise and a turn of the microtask queue.
      onRequest: (request, _reply, done) => {
        let publisherId: string | undefined;
        try {
          publisherId = publisherOfToken(refresher.current, bearerToken(request));
        } catch (error) {
          done(error as Error);
          return;
        }
        if (publisherId === undefined) done(new ApiError('auth_invalid', 'publisher token is invalid'));
        else {
          request.publisherId = publisherId;
          done();
        }
      },
    },
    async (request, reply) => {
      const answer = answerServe(request.body, request.publisherId);
      // Written together with the other answers of this event-loop turn: see endOfTurn.
      await endOfTurn();
      return typeof answer === 'string' ? reply.type(JSON_CONTENT_TYPE).send(answer) : answer;
    },
  );
}

/** Whether fastify logs each request (at info and below), which the direct serve does not. */
function logsRequests(log: FastifyBaseLogger): boolean {
  // pino's; without a logger fastify's stand-in logs nothing and has no such method.
  return (log as Partial<{ isLevelEnabled(level: string): boolean }>).isLevelEnabled?.('info') === true;
}

/** An explanation with the matched line items that were held back, when any was. */
function withHeldBack<T extends object | undefined>(match: T, heldBack: HeldBack | undefined): T | (T & { held_back: HeldBack }) {
  return heldBack === undefined ? match : { ...match!, held_back: heldBack };
}

/** Why no ad was served, for an `explain` request. */
function noAdExplanation(veto: BrandSafetyVeto | undefined) {
  if (veto === undefined) return { by: 'none' as const };
  return { by: 'brand_safety' as const, topic: veto.topic, judged_by: veto.by, ...(veto.similarity === undefined ? {} : { similarity: Math.round(veto.similarity * 1000) / 1000 }) };
}
