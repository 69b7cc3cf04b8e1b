import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { publisherOf, requirePublisherToken } from '../placements/publisherAuth.js';
import { parsePublisherReportParams } from './reportingParams.js';
import { sendReport } from './reportResponse.js';
import { negotiatedFormat } from './negotiatedFormat.js';
import {
  publisherDailyReport,
  publisherDailyRowColumns,
  publisherPlacementReport,
  publisherPlacementRowColumns,
  type PublisherReportRequest,
} from './publisherReport.js';

/** GET /v1/publisher/reporting (publisher token): requests, fill, events and earnings of the publisher's own placements. */
export async function publisherReportingRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const stores = { db: deps.db, ch: deps.ch };

  app.get('/v1/publisher/reporting', { onRequest: requirePublisherToken(deps.db), config: { query: 'parsed' } }, async (request, reply) => {
    const params = parsePublisherReportParams(request.query, negotiatedFormat(request));
    const reportRequest: PublisherReportRequest = {
      publisherId: publisherOf(request),
      dateFrom: params.date_from,
      dateTo: params.date_to,
      limit: params.limit,
      offset: params.offset,
    };
    const common = {
      format: params.format,
      limit: params.limit,
      offset: params.offset,
      query: { breakdown: params.breakdown, date_from: params.date_from, date_to: params.date_to },
      filename: `publisher-${params.breakdown}-report_${params.date_from}_${params.date_to}.csv`,
      download: { downloads: deps.downloads, who: { publisher_id: reportRequest.publisherId } },
    };
    return params.breakdown === 'daily'
      ? sendReport(reply, { ...common, columns: publisherDailyRowColumns, batches: publisherDailyReport(stores, reportRequest) })
      : sendReport(reply, { ...common, columns: publisherPlacementRowColumns, batches: publisherPlacementReport(stores, reportRequest) });
  });
}
