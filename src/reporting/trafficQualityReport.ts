import { z } from 'zod';
import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { ReportRequest } from './reportRequest.js';
import { CAMPAIGN_IDS_PER_QUERY, organizationCampaigns } from './reportCampaigns.js';
import { deletedCampaignsWithEvents } from './deletedCampaigns.js';

/** Invalid events of one campaign for one reason over the window: what was filtered out, and why. */
export interface TrafficQualityRow {
  campaign_id: string;
  campaign_name: string;
  ivt_reason: string;
  invalid_impressions: number;
  invalid_clicks: number;
  invalid_conversions: number;
}

export const trafficQualityRowColumns = [
  'campaign_id',
  'campaign_name',
  'ivt_reason',
  'invalid_impressions',
  'invalid_clicks',
  'invalid_conversions',
] as const satisfies ReadonlyArray<keyof TrafficQualityRow>;

/**
 * The traffic-quality view: one row per campaign and invalid-traffic reason that had invalid events
 * in the window (a campaign with clean traffic has no rows), campaigns in the order of the campaign
 * breakdown, reasons alphabetically within one. Rows are counted in ClickHouse, so the page is cut
 * after reading; there are at most a handful of reasons per campaign.
 */
export async function* trafficQualityReport(
  stores: { db: SqlExecutor; ch: ClickHouse },
  request: ReportRequest,
): AsyncGenerator<TrafficQualityRow[]> {
  const deleted = await deletedCampaignsWithEvents(stores, request);
  const campaigns = await organizationCampaigns(stores.db, request.organizationId, request.campaignIds, { limit: null, offset: 0 }, deleted);
  const ids = campaigns.map((campaign) => campaign.id);
  const counts = new Map<string, InvalidCounts[]>();
  for (let start = 0; start < ids.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const chunk = await invalidCounts(stores.ch, ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY), request.dateFrom, request.dateTo);
    for (const row of chunk) counts.set(row.campaign_id, [...(counts.get(row.campaign_id) ?? []), row]);
  }
  const rows = campaigns.flatMap((campaign) =>
    (counts.get(campaign.id) ?? [])
      .sort((a, b) => (a.ivt_reason < b.ivt_reason ? -1 : a.ivt_reason > b.ivt_reason ? 1 : 0))
      .map((count) => ({ ...count, campaign_name: campaign.name })),
  );
  yield rows.slice(request.offset, request.offset + request.limit).map((row) => ({
    campaign_id: row.campaign_id,
    campaign_name: row.campaign_name,
    ivt_reason: row.ivt_reason,
    invalid_impressions: row.invalid_impressions,
    invalid_clicks: row.invalid_clicks,
    invalid_conversions: row.invalid_conversions,
  }));
}

const invalidCountsRow = z.object({
  campaign_id: z.string(),
  ivt_reason: z.string(),
  invalid_impressions: z.coerce.number(),
  invalid_clicks: z.coerce.number(),
  invalid_conversions: z.coerce.number(),
});
type InvalidCounts = z.output<typeof invalidCountsRow>;

/** Invalid events per campaign and reason over the window, from the invalid-traffic rollup. */
async function invalidCounts(ch: ClickHouse, campaignIds: string[], dateFrom: string, dateTo: string): Promise<InvalidCounts[]> {
  const result = await ch.client.query({
    query: `
      SELECT
        campaign_id,
        ivt AS ivt_reason,
        sumIf(events, type = 'impression') AS invalid_impressions,
        sumIf(events, type = 'click') AS invalid_clicks,
        sumIf(events, type = 'conversion') AS invalid_conversions
      FROM daily_ivt_v1
      WHERE campaign_id IN {campaign_ids:Array(UUID)}
        AND day BETWEEN {date_from:Date} AND {date_to:Date}
      GROUP BY campaign_id, ivt
      SETTINGS max_execution_time = 30`,
    query_params: { campaign_ids: campaignIds, date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  return z.array(invalidCountsRow).parse(await result.json());
}
