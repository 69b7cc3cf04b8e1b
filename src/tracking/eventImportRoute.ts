import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { requireAdminToken } from '../http/adminAuth.js';
import { ApiError } from '../http/errors.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';
import type { Postgres } from '../store/postgres.js';
import type { EventPipeline } from './eventPipeline.js';
import { importEvents } from './eventImport.js';

export interface EventImportRouteDeps {
  db: Postgres;
  events: EventPipeline;
  traffic: TrafficClassifier;
  adminToken: string;
  bodyLimit: number;
}

/**
 * Backfill and migration: `POST /v1/admin/events/import`, NDJSON, one event a line. Every stored line
 * goes to the pipeline in one accept (all or nothing against the buffer bound), and the answer waits
 * for the write to ClickHouse, so the events are in reports when it returns.
 */
export async function eventImportRoute(app: FastifyInstance, deps: EventImportRouteDeps): Promise<void> {
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string', bodyLimit: deps.bodyLimit }, (_request, body, done) => {
    done(null, body);
  });

  app.post(
    '/v1/admin/events/import',
    // Checked on request, before a body of up to IMPORT_BODY_LIMIT_BYTES is read.
    { onRequest: requireAdminToken(deps.adminToken) as onRequestAsyncHookHandler, bodyLimit: deps.bodyLimit },
    async (request) => {
      if (typeof request.body !== 'string') {
        throw new ApiError('unsupported_media_type', 'send the events as application/x-ndjson, one JSON object a line');
      }
      const { events, summary } = await importEvents(request.body, deps, Date.now());
      if (events.length > 0) {
        deps.events.accept(events);
        try {
          await deps.events.flush();
        } catch (error) {
          // Accepted events are spooled and written once ClickHouse answers again; the counts stand.
          request.log.error({ err: error }, 'imported events are spooled but not yet in ClickHouse');
        }
      }
      return { data: summary };
    },
  );
}
