import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { requireAdminToken } from '../http/adminAuth.js';
import { ApiError, parseBody, parsePathParams } from '../http/errors.js';
import { publisherIdParam } from '../placements/placementSchemas.js';
import { publisherExists } from '../placements/publisherRepository.js';
import { operatorDailyReport, operatorDailyRowColumns } from './operatorReport.js';
import { parseOperatorReportParams } from './reportingParams.js';
import { sendReport } from './reportResponse.js';
import { negotiatedFormat } from './negotiatedFormat.js';
import { revenueShareBody } from './revenueShareSchemas.js';
import { revenueShareOf, setRevenueShare } from './revenueShares.js';

/** The operator's side of reporting (admin token): platform totals per day and publishers' revenue shares. */
export async function operatorReportingRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  const stores = { db: deps.db, ch: deps.ch };
  app.addHook('onRequest', requireAdminToken(deps.secrets.adminToken));

  app.get('/v1/admin/reporting', { config: { query: 'parsed' } }, async (request, reply) => {
    const params = parseOperatorReportParams(request.query, negotiatedFormat(request));
    return sendReport(reply, {
      format: params.format,
      columns: operatorDailyRowColumns,
      batches: operatorDailyReport(stores, { dateFrom: params.date_from, dateTo: params.date_to, limit: params.limit, offset: params.offset }),
      limit: params.limit,
      offset: params.offset,
      query: { date_from: params.date_from, date_to: params.date_to },
      filename: `platform-report_${params.date_from}_${params.date_to}.csv`,
      download: { downloads: deps.downloads, who: { operator: 'admin token' } },
    });
  });

  app.get('/v1/admin/publishers/:publisher_id/revenue-share', async (request) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    if (!(await publisherExists(deps.db, publisher_id))) throw new ApiError('not_found', 'publisher not found');
    return { data: await revenueShareOf(deps.db, publisher_id) };
  });

  app.put('/v1/admin/publishers/:publisher_id/revenue-share', async (request) => {
    const { publisher_id } = parsePathParams(publisherIdParam, request.params, 'publisher');
    const { revenue_share, effective_from } = parseBody(revenueShareBody, request.body);
    if (!(await publisherExists(deps.db, publisher_id))) throw new ApiError('not_found', 'publisher not found');
    return { data: await setRevenueShare(deps.db, publisher_id, revenue_share, effective_from) };
  });
}
