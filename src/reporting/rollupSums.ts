import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { MetricSums } from './performanceMetrics.js';

/**
 * The sums columns of a rollup query (`total_*`). Counts may arrive as numbers or, from a server
 * that quotes 64-bit integers, as strings; money is selected with toString so that nano sums beyond
 * 2^53 stay exact.
 */
export const rollupSumsColumns = {
  total_impressions: z.coerce.number(),
  total_clicks: z.coerce.number(),
  total_conversions: z.coerce.number(),
  total_spend_nanos: z.string().regex(/^-?\d+$/).transform(BigInt),
  total_revenue_nanos: z.string().regex(/^-?\d+$/).transform(BigInt),
};

export function sumsOfRow(row: {
  total_impressions: number;
  total_clicks: number;
  total_conversions: number;
  total_spend_nanos: bigint;
  total_revenue_nanos: bigint;
}): MetricSums {
  return {
    impressions: row.total_impressions,
    clicks: row.total_clicks,
    conversions: row.total_conversions,
    spendNanos: row.total_spend_nanos,
    revenueNanos: row.total_revenue_nanos,
  };
}

/** What a report groups the rollup by: one row per campaign, or one row per UTC day. */
export type RollupGrouping = 'campaign_id' | 'day';

const groupedRows = z.array(z.object({ key: z.string(), ...rollupSumsColumns }));

/**
 * Valid-traffic sums over the window for the given campaigns, from the per-campaign daily rollup
 * (clickhouse/0002), keyed by campaign id or by day. Its rows are merged lazily, so sum() ...
 * GROUP BY is what makes them exact; it is ordered by (campaign_id, day), so both conditions narrow
 * the read to the requested campaigns and days. The time limit sits in the query itself: embedded chdb ignores the client's
 * request timeout, and a SET would outlive the query.
 */
export async function rollupSums(
  ch: ClickHouse,
  groupBy: RollupGrouping,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
): Promise<Map<string, MetricSums>> {
  // groupBy is one of two fixed column names (the type allows nothing else), never user input.
  const result = await ch.client.query({
    query: `
      SELECT
        toString(${groupBy}) AS key,
        sum(impressions) AS total_impressions,
        sum(clicks) AS total_clicks,
        sum(conversions) AS total_conversions,
        toString(sum(spend_nanos)) AS total_spend_nanos,
        toString(sum(revenue_nanos)) AS total_revenue_nanos
      FROM campaign_daily_stats_v1
      WHERE campaign_id IN {campaign_ids:Array(UUID)}
        AND day BETWEEN {date_from:Date} AND {date_to:Date}
      GROUP BY ${groupBy}
      SETTINGS max_execution_time = 30`,
    query_params: { campaign_ids: campaignIds, date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  const rows = groupedRows.parse(await result.json());
  return new Map(rows.map((row) => [row.key, sumsOfRow(row)]));
}
