import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventPipeline } from '../tracking/eventPipeline.js';
import type { StreamedDownloads } from './streamedDownloads.js';
import { RequestDurationHistogram } from './requestDurationHistogram.js';
import { mainThreadStalls } from '../processWatchdog.js';

/**
 * The service's Prometheus metrics, one registry per app (tests build several apps in a process).
 * Event counts are read from the pipeline when scraped, so the pipeline knows nothing of Prometheus.
 */
export function createMetrics(events: EventPipeline, downloads: StreamedDownloads) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'adsvc_' });

  const eventCounter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  eventCounter('adsvc_events_accepted_total', 'Events spooled and answered 2xx', () => events.stats().accepted);
  eventCounter('adsvc_events_written_total', 'Events ClickHouse acknowledged', () => events.stats().written);
  eventCounter('adsvc_events_refused_total', 'Events refused with 503 (buffer full, spool not writable, shutting down)', () => events.stats().refused);
  eventCounter('adsvc_events_quarantined_total', 'Spooled lines ClickHouse could not parse, moved to DATA_DIR/quarantine', () => events.stats().quarantined);
  eventCounter(
    'adsvc_refused_writes_quarantined_total',
    'Inserts written at once (a conversion_id, a keyed import batch) ClickHouse refused every time they were sent, moved to DATA_DIR/quarantine',
    () => events.stats().quarantinedWrites,
  );
  eventCounter('adsvc_event_write_failures_total', 'Failed rounds of writing events to ClickHouse (each is retried)', () => events.stats().writeFailures);
  eventCounter('adsvc_event_listener_failures_total', 'Throws of what counts accepted events as they come (pacing, caps, metrics); the events are kept', () => events.stats().listenerFailures);
  new Gauge({
    name: 'adsvc_event_backlog_rows',
    help: 'Accepted events not yet in ClickHouse',
    registers: [registry],
    collect() {
      this.set(events.stats().backlogRows);
    },
  });
  new Gauge({
    name: 'adsvc_event_backlog_oldest_age_seconds',
    help: 'Age of the oldest accepted event not yet in ClickHouse (0 when there is none)',
    registers: [registry],
    collect() {
      const oldest = events.stats().oldestPendingAt;
      this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
    },
  });
  new Gauge({
    name: 'adsvc_downloads_open',
    help: 'Streamed downloads (CSV reports, audit exports) being sent',
    registers: [registry],
    collect() {
      this.set(downloads.stats().open);
    },
  });
  new Gauge({
    name: 'adsvc_download_held_bytes',
    help: 'Bytes of streamed downloads read ahead and not yet taken by their client connections (what slow or stalled clients make this process hold)',
    registers: [registry],
    collect() {
      this.set(downloads.stats().heldBytes);
    },
  });
  eventCounter(
    'adsvc_main_thread_stalls_total',
    "Times the main thread went 5 s without turning its event loop (adsvc serve's watchdog; ended at WATCHDOG_TIMEOUT_MS)",
    mainThreadStalls,
  );
  eventCounter('adsvc_download_stalls_total', 'Streamed downloads destroyed because their client read nothing for DOWNLOAD_STALL_TIMEOUT_MS', () => downloads.stats().stalls);
  eventCounter('adsvc_downloads_refused_total', 'Streamed downloads refused 429 because their owner already held MAX_DOWNLOADS_PER_OWNER open', () => downloads.stats().refused);

  return {
    registry,
    httpDuration: new RequestDurationHistogram(registry),
    serveRequests: new Counter({ name: 'adsvc_serve_requests_total', help: 'POST /v1/serve requests that reached ad selection', registers: [registry] }),
    serveFills: new Counter({ name: 'adsvc_serve_fills_total', help: 'POST /v1/serve requests answered with an ad', registers: [registry] }),
    unbilledEvents: new Counter({
      name: 'adsvc_events_unbilled_total',
      help: 'Valid events this instance stored unbilled, over a billing ceiling, outside the countries its line item targets or of a deleted campaign (reason: src/tracking/unbilledReasons.ts)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    invalidEvents: new Counter({
      name: 'adsvc_events_invalid_total',
      help: 'Events this instance stored as invalid traffic, unbilled, by type and ivt reason (src/ivt/ivtReasons.ts)',
      labelNames: ['type', 'reason'] as const,
      registers: [registry],
    }),
    reachWriteFailures: new Counter({
      name: 'adsvc_reach_write_failures_total',
      help: 'Failed writes of the kept reach of a window reaching today, made after a report answered (the next report merges it again)',
      registers: [registry],
    }),
    indexLineItems: new Gauge({ name: 'adsvc_ad_index_line_items', help: 'Line items in the serving index', registers: [registry] }),
    indexRebuildSeconds: new Histogram({
      name: 'adsvc_ad_index_rebuild_seconds',
      help: 'Time to build the serving index from the whole catalog in Postgres (once, at start)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    indexChanges: new Counter({
      name: 'adsvc_ad_index_changes_total',
      help: 'Catalog changes (rows of catalog_changes) applied to the serving index without a rebuild',
      registers: [registry],
    }),
    indexPatchSeconds: new Histogram({
      name: 'adsvc_ad_index_patch_seconds',
      help: 'Time from reading catalog changes to the serving index holding them',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
