import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { BillingCeiling } from './billingCeiling.js';
import { createConversionRecorder } from './conversionRecorder.js';
import { conversionRoutes } from './conversionRoutes.js';
import { eventImportRoute } from './eventImportRoute.js';
import { browsersSendFetchMetadataTo } from '../ivt/fetchMetadata.js';
import { ImpressionVelocity } from './impressionVelocity.js';
import { PlacementBlocks } from './placementBlocks.js';
import { onProcessClock } from './processClock.js';
import { createLinkTracker } from './linkTracker.js';
import { ServeLedger } from './serveLedger.js';
import { findServeHistories } from './serveHistory.js';
import { ServeHistoryLookup } from './serveHistoryLookup.js';
import { afterSpoolReplay } from './spoolReplay.js';
import { trackingLinkRoutes } from './trackingLinkRoutes.js';

/** Serves remembered per process for duplicate and click-quality checks (about 40 MB of typed arrays at capacity: serveLedger.ts). */
const SERVE_LEDGER_CAPACITY = 1_000_000;

/**
 * Tracking: the impression pixel and click redirect of ad payloads, advertisers' conversions, and
 * the operators' event import. Every event is classified before it is written; the data-center
 * tables are built once, at start (deps.traffic).
 */
export async function trackingRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const { config, db, ch, events, secrets, indexedDestinations } = deps;
  const startedAt = performance.now();
  const traffic = await deps.traffic;
  app.log.info({ waitedMs: Math.round(performance.now() - startedAt) }, 'invalid-traffic tables loaded');

  const history = new ServeHistoryLookup(afterSpoolReplay(events, (serveIds) => findServeHistories(ch, serveIds)), {
    windowMs: config.SERVE_LOOKUP_WINDOW_MS,
    timeoutMs: config.SERVE_LOOKUP_TIMEOUT_MS,
  });
  const ceiling = new BillingCeiling(
    (lineItemId, nowMs) => indexedDestinations.billedLineItem(lineItemId, nowMs),
    (lineItems, fromDay) => indexedDestinations.billedSpend(lineItems, fromDay),
    {
      hasUnsettledSpend: (lineItemId) => indexedDestinations.hasUnsettledSpend(lineItemId),
      settleRepeats: (lineItemId, campaignId, serveIds) => indexedDestinations.settleRepeats(lineItemId, campaignId, serveIds),
      countersDay: () => indexedDestinations.countersDay(),
      timeoutMs: config.SERVE_LOOKUP_TIMEOUT_MS,
    },
  );
  // Counted once stored, not when judged: an event refused with 503 is retried, and is one event.
  // The invalid count by reason is what shows a proxy that strips headers (every browser's event
  // becoming no_fetch_metadata) or a publisher gone bad, before the invoices do.
  events.onAccepted((event) => {
    if (event.unbilled !== '') deps.metrics.unbilledEvents.inc({ reason: event.unbilled });
    else if (event.ivt !== '') deps.metrics.invalidEvents.inc({ type: event.type, reason: event.ivt });
  });
  const ledger = new ServeLedger(SERVE_LEDGER_CAPACITY);
  // The serves whose valid impression or click a crashed run accepted and left in the spool: a
  // repeat of them is a duplicate at once, as it was in that run. Else, until the replay wrote them,
  // each repeat counted as billable spend and impressions in the ceilings and pacing, and real events
  // of the same line items meanwhile were stored over a ceiling (try42 F1: 51 of 60 billable billed).
  events.forEachRecovered((event) => {
    if (event.ivt !== '' || event.serve_id === '') return;
    if (event.type === 'impression') ledger.record(event.serve_id, onProcessClock({ impressionAt: event.event_time, impressionCounted: true, clickCounted: false }));
    else if (event.type === 'click') ledger.record(event.serve_id, { clickCounted: true });
  });
  const tracker = createLinkTracker({
    events,
    ledger,
    history,
    ceiling,
    log: app.log,
    fetchMetadataExpected: browsersSendFetchMetadataTo(config.TRACKING_BASE_URL),
    impressionVelocity: new ImpressionVelocity({
      per10s: config.IMPRESSION_VELOCITY_10S,
      per10min: config.IMPRESSION_VELOCITY_10MIN,
      blockPer10s: config.IMPRESSION_BLOCK_VELOCITY_10S,
      blockPer10min: config.IMPRESSION_BLOCK_VELOCITY_10MIN,
    }),
    placementBlocks: new PlacementBlocks({
      per10s: config.PLACEMENT_CLICK_VELOCITY_10S,
      per10min: config.PLACEMENT_CLICK_VELOCITY_10MIN,
      maxClickThrough: config.PLACEMENT_CLICK_THROUGH_MAX,
    }),
  });
  const conversions = createConversionRecorder({ db, ch, events, ceiling, attributionWindowDays: config.ATTRIBUTION_WINDOW_DAYS });

  await app.register(trackingLinkRoutes, {
    db,
    indexedDestinations,
    trackingSecret: secrets.trackingSecret,
    traffic,
    tracker,
    clientAddress: deps.clientAddress,
    httpDuration: deps.metrics.httpDuration,
  });
  await app.register(conversionRoutes, { db, traffic, conversions });
  await app.register(eventImportRoute, { db, ch, events, traffic, indexedDestinations, ceiling, adminToken: secrets.adminToken, bodyLimit: config.IMPORT_BODY_LIMIT_BYTES });
}
