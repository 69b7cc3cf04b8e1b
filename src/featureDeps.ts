import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { Postgres } from './store/postgres.js';
import type { ClickHouse } from './store/clickhouse.js';
import type { EventPipeline } from './tracking/eventPipeline.js';
import type { Metrics } from './http/metrics.js';
import type { StreamedDownloads } from './http/streamedDownloads.js';
import type { IndexedDestinations } from './serving/indexedDestinations.js';
import type { ServingIndexRefresh } from './serving/servingIndexRefresh.js';
import type { TrafficClassifier } from './ivt/trafficClassifier.js';
import type { BaseBytes } from './serving/catalogSnapshot.js';
import type { IncomingMessage } from 'node:http';

// The dependency types live in a leaf of their own so feature plugins can name them without
// importing app.ts, which imports every feature.

export interface Secrets {
  adminToken: string;
  trackingSecret: string;
}

export interface AppDeps {
  config: Config;
  db: Postgres;
  ch: ClickHouse;
  secrets: Secrets;
  logger?: FastifyServerOptions['logger'];
  /** Where the console bundle is (tests build their own); dist/console by default. */
  consoleDir?: string;
  /**
   * The catalog snapshot's base, its read begun by startService once the stores are open
   * (readBaseAhead); servingRoutes begins it when not given.
   */
  snapshotBase?: Promise<BaseBytes>;
  /**
   * On a Postgres server with embedded ClickHouse, the instance's claim on the database
   * (embeddedClickHouseClaim.ts): while another instance holds it, events are refused and /healthz fails.
   */
  embeddedClickHouseClaim?: { keepsEvents(): boolean };
}

/** What every feature plugin may use; each takes what it needs. */
export interface FeatureDeps extends AppDeps {
  events: EventPipeline;
  metrics: Metrics;
  /** Sends CSV and NDJSON downloads piece by piece, destroying those whose client stopped reading. */
  downloads: StreamedDownloads;
  /** Filled by serving with each index build; read by click tracking while Postgres is down. */
  indexedDestinations: IndexedDestinations;
  /** Provided by serving; called by whatever changes a placement's certification. */
  servingIndex: ServingIndexRefresh;
  /** The invalid-traffic tables, built in a worker thread from the start of buildApp; tracking awaits them. */
  traffic: Promise<TrafficClassifier>;
  /** The client's address under TRUST_PROXY, as fastify's request.ip gives it, for a request answered before fastify. */
  clientAddress(request: IncomingMessage): string | undefined;
}
