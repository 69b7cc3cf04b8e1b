import type { ClickHouse } from '../src/store/clickhouse.js';

/** Valid sums as report rows carry them (spend in USD). */
interface ReportTotals {
  impressions: number;
  clicks: number;
  conversions: number;
  spend_usd: number;
}

interface ReportWindow {
  from: string;
  to: string;
}

/** Sums of the base metrics over report rows (any breakdown: every row has them). */
export function totals(rows: ReadonlyArray<Partial<Record<keyof ReportTotals, unknown>>>): ReportTotals {
  const sum = (field: keyof ReportTotals) => rows.reduce((total, row) => total + Number(row[field] ?? 0), 0);
  return { impressions: sum('impressions'), clicks: sum('clicks'), conversions: sum('conversions'), spend_usd: sum('spend_usd') };
}

/**
 * Spend within half a cent: each row's spend is rounded to 6 decimals, so a sum of 2,000 rows may
 * drift by up to 0.001. Not rounded to cents and compared: a total on a half cent (608,818.945 in the
 * 100M data's --past-window) rounds up or down with that drift.
 */
export function sameTotals(a: ReportTotals, b: ReportTotals, fields: ReadonlyArray<keyof ReportTotals> = ['impressions', 'clicks', 'conversions', 'spend_usd']): boolean {
  return fields.every((field) => (field === 'spend_usd' ? Math.abs(a[field] - b[field]) < 0.005 : a[field] === b[field]));
}

const windowCondition = `event_time >= toDateTime64({from:String}, 3, 'UTC') AND event_time < toDateTime64({to:String}, 3, 'UTC') + INTERVAL 1 DAY`;

/** The report's sums computed from every raw event instead of the rollup, grouped as the campaign or daily breakdown. */
export async function rawAggregation(ch: ClickHouse, grouping: 'campaign' | 'daily', campaignIds: string[], window: ReportWindow): Promise<ReportTotals> {
  const key = grouping === 'campaign' ? 'campaign_id' : 'toDate(event_time)';
  const result = await ch.client.query({
    query: `
      SELECT ${key} AS group_key,
             toUInt64(countIf(type = 'impression')) AS impressions,
             toUInt64(countIf(type = 'click')) AS clicks,
             toUInt64(countIf(type = 'conversion')) AS conversions,
             toFloat64(sum(cost_nanos)) / 1e9 AS spend_usd
      FROM events_v1
      WHERE ivt = '' AND campaign_id IN {campaign_ids:Array(UUID)} AND ${windowCondition}
      GROUP BY group_key`,
    query_params: { campaign_ids: campaignIds, from: window.from, to: window.to },
    format: 'JSONEachRow',
  });
  return totals(await result.json<ReportTotals>());
}

/** Invalid impressions of the campaigns over the window, for the publisher and operator rows. */
export async function rawInvalidImpressions(ch: ClickHouse, campaignIds: string[], window: ReportWindow): Promise<number> {
  const result = await ch.client.query({
    query: `SELECT toString(count()) AS invalid FROM events_v1
            WHERE ivt != '' AND type = 'impression' AND campaign_id IN {campaign_ids:Array(UUID)} AND ${windowCondition}`,
    query_params: { campaign_ids: campaignIds, from: window.from, to: window.to },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ invalid: string }>();
  return Number(row!.invalid);
}

/** Exact distinct users with a valid impression per campaign over the window (uniqExact over the raw events). */
export async function rawReach(ch: ClickHouse, campaignIds: string[], window: ReportWindow): Promise<Map<string, number>> {
  const result = await ch.client.query({
    query: `SELECT toString(campaign_id) AS campaign, uniqExact(if(user_key != '', concat('u:', user_key), concat('a:', ip, ' ', user_agent))) AS users
            FROM events_v1
            WHERE ivt = '' AND type = 'impression' AND campaign_id IN {campaign_ids:Array(UUID)} AND ${windowCondition}
            GROUP BY campaign`,
    query_params: { campaign_ids: campaignIds, from: window.from, to: window.to },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ campaign: string; users: string | number }>()).map((row) => [row.campaign, Number(row.users)]));
}

/** Serve requests and fills of the placements over the window, as serving instances wrote them (placement_serve_counts_v1). */
export async function rawServeCounts(ch: ClickHouse, placementIds: string[], window: ReportWindow): Promise<{ requests: number; filled: number }> {
  const result = await ch.client.query({
    query: `SELECT toString(sum(requests)) AS requests, toString(sum(filled)) AS filled FROM placement_serve_counts_v1
            WHERE placement_id IN {placement_ids:Array(String)} AND day BETWEEN {from:Date} AND {to:Date}`,
    query_params: { placement_ids: placementIds, from: window.from, to: window.to },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ requests: string; filled: string }>();
  return { requests: Number(row!.requests), filled: Number(row!.filled) };
}
