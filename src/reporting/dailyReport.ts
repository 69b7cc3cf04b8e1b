import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { ReportRequest } from './reportRequest.js';
import { CAMPAIGN_IDS_PER_QUERY, organizationCampaigns } from './reportCampaigns.js';
import { deletedCampaignsWithEvents } from './deletedCampaigns.js';
import {
  addSums,
  performanceMetricNames,
  performanceMetrics,
  ZERO_SUMS,
  type MetricSums,
  type PerformanceMetrics,
} from './performanceMetrics.js';
import { rollupSums } from './rollupSums.js';
import { eachDate } from '../utcDays.js';

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
  const deleted = await deletedCampaignsWithEvents(stores, request);
  const campaigns = await organizationCampaigns(stores.db, request.organizationId, request.campaignIds, { limit: null, offset: 0 }, deleted);
  const sums = new Map<string, MetricSums>();
  const ids = campaigns.map((campaign) => campaign.id);
  for (let start = 0; start < ids.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const chunk = await rollupSums(stores.ch, 'day', ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY), days[0]!, days.at(-1)!);
    for (const [day, daySums] of chunk) sums.set(day, addSums(sums.get(day) ?? ZERO_SUMS, daySums));
  }
  yield days.map((date) => ({ date, ...performanceMetrics(sums.get(date) ?? ZERO_SUMS) }));
}
