import type { SqlExecutor } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import type { ReportRequest } from './reportRequest.js';
import { CAMPAIGN_IDS_PER_QUERY, organizationCampaigns, type ReportCampaign } from './reportCampaigns.js';
import { deletedCampaignsWithEvents } from './deletedCampaigns.js';
import { addSums, performanceMetricNames, performanceMetrics, ZERO_SUMS, type PerformanceMetrics } from './performanceMetrics.js';
import { breakdownSums, type BreakdownDimension, type BreakdownSums } from './breakdownRollup.js';
import { creativeTitles, lineItemTitles, placementNames } from './breakdownNames.js';
import { eachDate } from '../utcDays.js';
import { reachOver, type ReachStores } from './reachBlocks.js';

type Stores = { db: SqlExecutor; ch: ClickHouse };

export interface LineItemRow extends PerformanceMetrics {
  campaign_id: string;
  campaign_name: string;
  line_item_id: string;
  line_item_title: string | null;
  unique_users: number;
}
export interface CreativeRow extends PerformanceMetrics {
  campaign_id: string;
  campaign_name: string;
  creative_id: string;
  creative_title: string | null;
}
export interface PlacementRow extends PerformanceMetrics {
  placement_id: string;
  placement_name: string | null;
}
export interface CountryRow extends PerformanceMetrics {
  country: string;
}
export interface HourlyRow extends PerformanceMetrics {
  hour: string;
}

export const lineItemRowColumns = [
  'campaign_id', 'campaign_name', 'line_item_id', 'line_item_title', ...performanceMetricNames, 'unique_users',
] as const satisfies ReadonlyArray<keyof LineItemRow>;
export const creativeRowColumns = [
  'campaign_id', 'campaign_name', 'creative_id', 'creative_title', ...performanceMetricNames,
] as const satisfies ReadonlyArray<keyof CreativeRow>;
export const placementRowColumns = ['placement_id', 'placement_name', ...performanceMetricNames] as const satisfies ReadonlyArray<keyof PlacementRow>;
export const countryRowColumns = ['country', ...performanceMetricNames] as const satisfies ReadonlyArray<keyof CountryRow>;
export const hourlyRowColumns = ['hour', ...performanceMetricNames] as const satisfies ReadonlyArray<keyof HourlyRow>;

/** Events whose country could not be told ('' in events_v1) are reported under this code. */
const UNKNOWN_COUNTRY = 'unknown';

/**
 * Every organization campaign (or the filtered ones) and the rollup rows of the breakdown for them,
 * read 5000 campaign ids per query. Line item and creative rows carry their campaign, so they never
 * meet across queries; placement, country and hour rows of different queries are added up.
 */
async function organizationSums(stores: Stores, request: ReportRequest, dimension: BreakdownDimension) {
  const deleted = await deletedCampaignsWithEvents(stores, request);
  const campaigns = await organizationCampaigns(stores.db, request.organizationId, request.campaignIds, { limit: null, offset: 0 }, deleted);
  const ids = campaigns.map((campaign) => campaign.id);
  const rows: BreakdownSums[] = [];
  for (let start = 0; start < ids.length; start += CAMPAIGN_IDS_PER_QUERY) {
    rows.push(...(await breakdownSums(stores.ch, dimension, ids.slice(start, start + CAMPAIGN_IDS_PER_QUERY), request.dateFrom, request.dateTo)));
  }
  return { campaigns, rows };
}

/** Sums per key over rows of several queries. */
function sumByKey(rows: BreakdownSums[]): Map<string, BreakdownSums> {
  const byKey = new Map<string, BreakdownSums>();
  for (const row of rows) {
    const seen = byKey.get(row.key);
    byKey.set(row.key, seen ? { ...seen, sums: addSums(seen.sums, row.sums) } : row);
  }
  return byKey;
}

/** Rows in the campaign breakdown's order of their campaign, then by key. */
function inCampaignOrder(campaigns: ReportCampaign[], rows: BreakdownSums[]): Array<BreakdownSums & { campaign: ReportCampaign }> {
  const position = new Map(campaigns.map((campaign, index) => [campaign.id, index]));
  const byId = new Map(campaigns.map((campaign) => [campaign.id, campaign]));
  return rows
    .map((row) => ({ ...row, campaign: byId.get(row.campaignId)! }))
    .sort((a, b) => position.get(a.campaignId)! - position.get(b.campaignId)! || compare(a.key, b.key));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function page<Row>(request: ReportRequest, rows: Row[]): Row[] {
  return rows.slice(request.offset, request.offset + request.limit);
}

/**
 * breakdown=line_item: one row per line item with valid events in the window, with its campaign and
 * its reach. Rows are counted in ClickHouse, so the page is cut after reading (a campaign has tens
 * of line items, not thousands).
 */
export async function* lineItemReport(stores: Stores & ReachStores, request: ReportRequest): AsyncGenerator<LineItemRow[]> {
  const { campaigns, rows } = await organizationSums(stores, request, 'line_item');
  const paged = page(request, inCampaignOrder(campaigns, rows));
  const [titles, reach] = await Promise.all([
    lineItemTitles(stores.db, paged.map((row) => row.key)),
    reachOver(stores, [...new Set(paged.map((row) => row.campaignId))], request.dateFrom, request.dateTo, true),
  ]);
  yield paged.map((row) => ({
    campaign_id: row.campaign.id,
    campaign_name: row.campaign.name,
    line_item_id: row.key,
    line_item_title: titles.get(row.key) ?? null,
    ...performanceMetrics(row.sums),
    unique_users: reach.get(row.key) ?? 0,
  }));
}

/** breakdown=creative: one row per creative with valid events, with its campaign. */
export async function* creativeReport(stores: Stores, request: ReportRequest): AsyncGenerator<CreativeRow[]> {
  const { campaigns, rows } = await organizationSums(stores, request, 'creative');
  const paged = page(request, inCampaignOrder(campaigns, rows));
  const titles = await creativeTitles(stores.db, paged.map((row) => row.key));
  yield paged.map((row) => ({
    campaign_id: row.campaign.id,
    campaign_name: row.campaign.name,
    creative_id: row.key,
    creative_title: titles.get(row.key) ?? null,
    ...performanceMetrics(row.sums),
  }));
}

/** breakdown=placement: one row per placement with valid events, summed over the campaigns, by placement id. */
export async function* placementReport(stores: Stores, request: ReportRequest): AsyncGenerator<PlacementRow[]> {
  const { rows } = await organizationSums(stores, request, 'placement');
  const paged = page(request, [...sumByKey(rows).values()].sort((a, b) => compare(a.key, b.key)));
  const names = await placementNames(stores.db, paged.map((row) => row.key));
  yield paged.map((row) => ({ placement_id: row.key, placement_name: names.get(row.key) ?? null, ...performanceMetrics(row.sums) }));
}

/** breakdown=country: one row per country with valid events, by ISO code, `unknown` last. */
export async function* countryReport(stores: Stores, request: ReportRequest): AsyncGenerator<CountryRow[]> {
  const { rows } = await organizationSums(stores, request, 'country');
  const countries = [...sumByKey(rows).values()].map((row) => ({ country: row.key === '' ? UNKNOWN_COUNTRY : row.key, sums: row.sums }));
  countries.sort((a, b) => Number(a.country === UNKNOWN_COUNTRY) - Number(b.country === UNKNOWN_COUNTRY) || compare(a.country, b.country));
  yield page(request, countries).map((row) => ({ country: row.country, ...performanceMetrics(row.sums) }));
}

/**
 * breakdown=hourly: one row per UTC hour of the window, ascending, every hour present (zero rows for
 * hours without events), summed over the campaigns. Paging walks the hours; only the page's days are read.
 */
export async function* hourlyReport(stores: Stores, request: ReportRequest): AsyncGenerator<HourlyRow[]> {
  const hours = eachDate(request.dateFrom, request.dateTo)
    .flatMap((date) => Array.from({ length: 24 }, (_, hour) => `${date}T${String(hour).padStart(2, '0')}:00:00Z`))
    .slice(request.offset, request.offset + request.limit);
  if (hours.length === 0) return;
  const pageRequest = { ...request, dateFrom: hours[0]!.slice(0, 10), dateTo: hours.at(-1)!.slice(0, 10) };
  const sums = sumByKey((await organizationSums(stores, pageRequest, 'hourly')).rows);
  yield hours.map((hour) => ({ hour, ...performanceMetrics(sums.get(hour)?.sums ?? ZERO_SUMS) }));
}

