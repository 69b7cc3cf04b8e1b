import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { Readable } from 'node:stream';
import { requireAdminToken } from '../http/adminAuth.js';
import { notUtf8Charset, unsupportedContentEncoding } from '../http/bodyEncoding.js';
import { ApiError } from '../http/errors.js';
import { idempotencyKeyOf } from '../http/idempotencyKey.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { IndexedDestinations } from '../serving/indexedDestinations.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { Postgres } from '../store/postgres.js';
import type { BillingCeiling } from './billingCeiling.js';
import type { EventPipeline } from './eventPipeline.js';
import { importEvents } from './eventImport.js';
import { ImportCeilings } from './importCeilings.js';
import { importedEventId, importLock, importOnceStore } from './importOnce.js';
import { ndjsonLines } from './ndjsonLines.js';
import type { TrackedEvent } from './trackedEvent.js';

const SEND_NDJSON = 'send the events as application/x-ndjson, one JSON object a line';

export interface EventImportRouteDeps {
  db: Postgres;
  ch: ClickHouse;
  events: EventPipeline;
  traffic: TrafficClassifier;
  /** The live spend figures the import's billing ceilings start from, where billing keeps them. */
  indexedDestinations: IndexedDestinations;
  /** The live billing ceilings, in whose late turns the import's batches are judged and stored (importCeilings.ts). */
  ceiling: BillingCeiling;
  adminToken: string;
  bodyLimit: number;
}

/**
 * Backfill and migration: `POST /v1/admin/events/import`, NDJSON, one event a line. The body is read
 * as a stream, line by line, and its events go to the pipeline in bounded batches, yielding to the
 * event loop as it goes: a large import neither holds the body in memory nor holds up live pixels.
 * The answer waits for the write to ClickHouse, so the events are in reports when it returns.
 */
export async function eventImportRoute(app: FastifyInstance, deps: EventImportRouteDeps): Promise<void> {
  // The body stays a stream (fastify checks no limit on it): the announced length is checked here,
  // the bytes actually read by ndjsonLines.
  app.addContentTypeParser('application/x-ndjson', (request, payload, done) => {
    if (Number(request.headers['content-length']) > deps.bodyLimit) {
      done(new ApiError('payload_too_large', `request body is over ${deps.bodyLimit} bytes`), undefined);
      return;
    }
    const problem = unsupportedContentEncoding(request.headers['content-encoding']) ?? notUtf8Charset(request.headers['content-type']);
    if (problem) {
      done(new ApiError('unsupported_media_type', problem), undefined);
      return;
    }
    done(null, payload);
  });
  // Any other type (this plugin's scope holds only the import): the import's own hint, not the
  // "send bodies as application/json" fastify's unknown type is answered with elsewhere.
  app.addContentTypeParser('*', (_request, _payload, done) => done(new ApiError('unsupported_media_type', SEND_NDJSON), undefined));

  const lock = importLock(deps.db);
  app.post(
    '/v1/admin/events/import',
    // Checked on request, before a body of up to IMPORT_BODY_LIMIT_BYTES is read.
    { onRequest: requireAdminToken(deps.adminToken) as onRequestAsyncHookHandler },
    async (request) => {
      if (!isStream(request.body)) {
        throw new ApiError('unsupported_media_type', SEND_NDJSON);
      }
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const lines = ndjsonLines(request.body, deps.bodyLimit);
      const now = Date.now();
      const ceilings = new ImportCeilings({ db: deps.db, billedSpend: (lineItems) => deps.indexedDestinations.billedSpend(lineItems), ceiling: deps.ceiling });
      try {
        if (key !== undefined) {
          // Sent again with the same key (after a cut connection, a 503), the lines already stored are left out.
          const once = {
            store: importOnceStore({ db: deps.db, ch: deps.ch, events: deps.events, lock }, key),
            eventIdOf: (line: number, text: string) => importedEventId(key, line, text),
          };
          return { data: await importEvents(lines, { db: deps.db, traffic: deps.traffic, ceilings, ...once }, now) };
        }
        const write = async () => {
          try {
            await deps.events.flush();
          } catch (error) {
            // Accepted events are spooled and written once ClickHouse answers again; the counts stand.
            request.log.error({ err: error }, 'imported events are spooled but not yet in ClickHouse');
          }
        };
        let unwritten = 0;
        const storeBatch = async (batch: TrackedEvent[], _range: unknown, judge: (fresh: TrackedEvent[], write: () => Promise<void>) => Promise<void>) => {
          // Spooled in the judgement's turns: pacing records the batch as it is accepted, so the next spend read sees it.
          await judge(batch, async () => {
            if (batch.length > 0) await store(deps.events, batch);
          });
          if (batch.length === 0) return;
          unwritten += batch.length;
          if (unwritten < IMPORT_WRITE_ROWS) return;
          unwritten = 0;
          await write();
        };
        const summary = await importEvents(lines, { db: deps.db, traffic: deps.traffic, ceilings, store: storeBatch }, now);
        await write();
        return { data: summary };
      } finally {
        ceilings.end();
      }
    },
  );
}

/**
 * Imported events are written to ClickHouse in rounds of this many, each waited for before the
 * import reads on. One 50,000-row segment (EVENT_FLUSH_ROWS) is a 26 MB insert: reading, copying
 * and parsing it stalled the event loop 110-140 ms and grew RSS by about 600 MB on embedded
 * ClickHouse (bench/README.md, import). Rounds of 10,000 keep every step small, and waiting for
 * each round leaves live pixels their share of the two cores.
 */
const IMPORT_WRITE_ROWS = 10_000;

/** A full buffer gets one flush to ClickHouse before the batch is refused (503). */
async function store(events: EventPipeline, batch: TrackedEvent[]): Promise<void> {
  try {
    events.accept(batch);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    await events.flush().catch(() => undefined);
    events.accept(batch);
  }
}

function isStream(body: unknown): body is Readable {
  return typeof (body as Readable | undefined)?.[Symbol.asyncIterator] === 'function';
}
