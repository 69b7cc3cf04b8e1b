import { z } from 'zod';
import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { ReportRequest } from './reportRequest.js';
import { CAMPAIGN_IDS_PER_QUERY, organizationCampaigns } from './reportCampaigns.js';
import {
  addSums,
  performanceMetricNames,
  performanceMetrics,
  rollupSumsColumns,
  sumsOfRow,
  ZERO_SUMS,
  type MetricSums,
  type PerformanceMetrics,
} from './performanceMetrics.js';
import { eachDate } from './utcDate.js';

export interface DailyRow extends PerformanceMetrics {
  date: string;
}

export const dailyRowColumns = ['date', ...performanceMetricNames] as const satisfies ReadonlyArray<keyof DailyRow>;

/**
 * The daily breakdown: one row per UTC day of the window, ascending, every day present (zero rows
 * for days without events), each summed over all the organization's campaigns (or the filtered
 * ones). Paging cuts the list of days; only the page's days are read.
 */
export async function* dailyReport(
  stores: { db: SqlExecutor; ch: ClickHouse },
  request: ReportRequest,
): AsyncGenerator<DailyRow[]> {
  const days = eachDate(request.dateFrom, request.dateTo).slice(request.offset, request.offset + request.limit);
  if (days.length === 0) return;
  const campaigns = await organizationCampaigns(stores.db, request.organizationId, request.campaignIds, {
    limit: null,
    offset: 0,
  });
  const sums = new Map<string, MetricSums>();
  const ids = campaigns.map((campaign) => campaign.id);
  for (let start = 0; start < ids.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const chunk = await dailySums(stores.ch, ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY), days[0]!, days.at(-1)!);
    for (const [day, daySums] of chunk) sums.set(day, addSums(sums.get(day) ?? ZERO_SUMS, daySums));
  }
  yield days.map((date) => ({ date, ...performanceMetrics(sums.get(date) ?? ZERO_SUMS) }));
}

const dailySumsRow = z.object({ day: z.string(), ...rollupSumsColumns });

/** Valid-traffic sums per day over the given campaigns, from the rollup (see campaignSums). */
async function dailySums(ch: ClickHouse, campaignIds: string[], dateFrom: string, dateTo: string): Promise<Map<string, MetricSums>> {
  const result = await ch.client.query({
    query: `
      SELECT
        day,
        sum(impressions) AS total_impressions,
        sum(clicks) AS total_clicks,
        sum(conversions) AS total_conversions,
        toString(sum(spend_nanos)) AS total_spend_nanos,
        toString(sum(revenue_nanos)) AS total_revenue_nanos
      FROM daily_stats_v1
      WHERE campaign_id IN {campaign_ids:Array(UUID)}
        AND day BETWEEN {date_from:Date} AND {date_to:Date}
      GROUP BY day
      SETTINGS max_execution_time = 30`,
    query_params: { campaign_ids: campaignIds, date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  const rows = z.array(dailySumsRow).parse(await result.json());
  return new Map(rows.map((row) => [row.day, sumsOfRow(row)]));
}
