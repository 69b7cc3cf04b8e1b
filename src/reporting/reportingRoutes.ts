import type { FastifyInstance } from 'fastify';
import type { FeatureDeps } from '../featureDeps.js';
import { advertiserOf, requireApiKey } from '../http/apiKeyAuth.js';
import { campaignReport, campaignRowColumns, campaignRowJson, type ReportProgress } from './campaignReport.js';
import { encodeCursor } from '../http/keysetPaging.js';
import { dailyReport, dailyRowColumns } from './dailyReport.js';
import {
  countryReport,
  countryRowColumns,
  creativeReport,
  creativeRowColumns,
  hourlyReport,
  hourlyRowColumns,
  lineItemReport,
  lineItemRowColumns,
  placementReport,
  placementRowColumns,
} from './breakdownReport.js';
import type { ReportRequest } from './reportRequest.js';
import { trafficQualityReport, trafficQualityRowColumns } from './trafficQualityReport.js';
import { parseCampaignReportParams, parseEventExportParams, parseTrafficQualityParams } from './reportingParams.js';
import { organizationCampaigns } from './reportCampaigns.js';
import { campaignEvents } from './eventExport.js';
import { negotiatedExportFormat, sendEventExport } from './eventExportResponse.js';
import { ApiError } from '../http/errors.js';
import { negotiatedFormat } from './negotiatedFormat.js';
import { publisherReportingRoutes } from './publisherReportingRoutes.js';
import { operatorReportingRoutes } from './operatorReportingRoutes.js';
import { sendReport } from './reportResponse.js';
import { KeptReachWrites } from './keptReachWrites.js';
import { KeptCampaignFigures } from './keptCampaignFigures.js';
import { CampaignAttributes } from './campaignAttributes.js';

/**
 * Advertiser reporting on the ClickHouse rollups: the spec's campaign and daily breakdowns, the
 * further breakdowns (line item, creative, placement, country, hour), the traffic-quality view of
 * what was filtered out as invalid, and the audit export of one campaign's events. All need the
 * reporting permission; reports answer JSON, or CSV for `Accept: text/csv` or `format=csv`.
 * Publisher and operator reporting are registered here too, each with its own credentials.
 */
export async function reportingRoutes(app: FastifyInstance, deps: FeatureDeps): Promise<void> {
  // Kept reach rows written after reports answer (keptReachWrites.ts); the running one is awaited on close, before the stores shut.
  const reachWrites = new KeptReachWrites(deps.ch, app.log, deps.metrics.reachWriteFailures);
  app.addHook('onClose', async () => reachWrites.close());
  // The campaign breakdown's campaign attributes and figures, kept while no write changed them (campaignAttributes.ts, keptCampaignFigures.ts).
  const stores = { db: deps.db, ch: deps.ch, reachWrites, campaignAttributes: new CampaignAttributes(deps.db), campaignFigures: new KeptCampaignFigures() };
  const onRequest = requireApiKey(deps.db, ['reporting']);
  await app.register(publisherReportingRoutes, deps);
  await app.register(operatorReportingRoutes, deps);

  app.get('/v1/advertiser/reporting/campaigns', { onRequest, config: { query: 'parsed' } }, async (request, reply) => {
    const { organizationId } = advertiserOf(request);
    const params = parseCampaignReportParams(request.query, negotiatedFormat(request));
    const reportRequest: ReportRequest = {
      organizationId,
      campaignIds: params.campaign_ids,
      dateFrom: params.date_from,
      dateTo: params.date_to,
      limit: params.limit,
      offset: params.offset,
      cursor: params.cursor,
    };
    const common = {
      format: params.format,
      limit: params.limit,
      offset: params.offset,
      query: { breakdown: params.breakdown, date_from: params.date_from, date_to: params.date_to, campaign_ids: params.campaign_ids },
      filename: `${params.breakdown}-report_${params.date_from}_${params.date_to}.csv`,
      download: { downloads: deps.downloads, who: { organization_id: organizationId } },
    };
    switch (params.breakdown) {
      case 'campaign': {
        const progress: ReportProgress = {};
        const nextCursor = () => (progress.last ? encodeCursor(progress.last) : null);
        return sendReport(reply, { ...common, columns: campaignRowColumns, batches: campaignReport(stores, reportRequest, progress), nextCursor, rowJson: campaignRowJson });
      }
      case 'daily':
        return sendReport(reply, { ...common, columns: dailyRowColumns, batches: dailyReport(stores, reportRequest) });
      case 'line_item':
        return sendReport(reply, { ...common, columns: lineItemRowColumns, batches: lineItemReport(stores, reportRequest) });
      case 'creative':
        return sendReport(reply, { ...common, columns: creativeRowColumns, batches: creativeReport(stores, reportRequest) });
      case 'placement':
        return sendReport(reply, { ...common, columns: placementRowColumns, batches: placementReport(stores, reportRequest) });
      case 'country':
        return sendReport(reply, { ...common, columns: countryRowColumns, batches: countryReport(stores, reportRequest) });
      case 'hourly':
        return sendReport(reply, { ...common, columns: hourlyRowColumns, batches: hourlyReport(stores, reportRequest) });
    }
  });

  app.get('/v1/advertiser/reporting/traffic-quality', { onRequest, config: { query: 'parsed' } }, async (request, reply) => {
    const { organizationId } = advertiserOf(request);
    const params = parseTrafficQualityParams(request.query, negotiatedFormat(request));
    return sendReport(reply, {
      format: params.format,
      columns: trafficQualityRowColumns,
      batches: trafficQualityReport(stores, {
        organizationId,
        campaignIds: params.campaign_ids,
        dateFrom: params.date_from,
        dateTo: params.date_to,
        limit: params.limit,
        offset: params.offset,
      }),
      limit: params.limit,
      offset: params.offset,
      query: { date_from: params.date_from, date_to: params.date_to, campaign_ids: params.campaign_ids },
      filename: `traffic-quality_${params.date_from}_${params.date_to}.csv`,
      download: { downloads: deps.downloads, who: { organization_id: organizationId } },
    });
  });

  app.get('/v1/advertiser/reporting/events', { onRequest, config: { query: 'parsed' } }, async (request, reply) => {
    const { organizationId } = advertiserOf(request);
    const params = parseEventExportParams(request.query, negotiatedExportFormat(request));
    // A deleted campaign's events can still be exported: the record behind an invoice outlives the campaign.
    const owned = await organizationCampaigns(deps.db, organizationId, [params.campaign_id], { limit: 1, offset: 0 }, [params.campaign_id]);
    if (owned.length === 0) throw new ApiError('not_found', 'campaign not found');
    const pages = campaignEvents(deps.ch, { campaignId: params.campaign_id, dateFrom: params.date_from, dateTo: params.date_to }, deps.config.EXPORT_PAGE_ROWS);
    const filename = `events_${params.campaign_id}_${params.date_from}_${params.date_to}`;
    return sendEventExport(reply, params.format, pages, filename, deps.downloads, { organization_id: organizationId });
  });
}
