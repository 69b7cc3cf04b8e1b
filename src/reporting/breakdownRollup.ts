import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { MetricSums } from './performanceMetrics.js';
import { rollupSumsColumns, sumsOfRow } from './rollupSums.js';
import { blockParams, dayBlocks } from './dayBlocks.js';

/** The advertiser breakdowns beyond campaign and daily, read from the rollups of clickhouse/0004 and 0009. */
export type BreakdownDimension = 'line_item' | 'creative' | 'placement' | 'country' | 'hourly';

/**
 * How each breakdown is read: its table, the rows' `campaign` and `key` SQL expressions, the
 * dimension filter and how the window is cut. Line items and creatives belong to one campaign, so
 * their rows keep it; placements, countries and hours are summed over the requested campaigns.
 * The four dimensions read breakdown_blocks_v1 (clickhouse/0009): the window's aligned blocks of
 * 1-64 days (dayBlocks.ts), at most 12 rows per campaign and key instead of one a day. Reach comes
 * from reach_blocks_v1 (reachBlocks.ts).
 */
const sources: Record<BreakdownDimension, { table: string; dimension: string | null; campaign: string; key: string; period: 'blocks' | 'hour' }> = {
  line_item: { table: 'breakdown_blocks_v1', dimension: 'line_item', campaign: 'toString(campaign_id)', key: 'key', period: 'blocks' },
  creative: { table: 'breakdown_blocks_v1', dimension: 'creative', campaign: 'toString(campaign_id)', key: 'key', period: 'blocks' },
  placement: { table: 'breakdown_blocks_v1', dimension: 'placement', campaign: "''", key: 'key', period: 'blocks' },
  country: { table: 'breakdown_blocks_v1', dimension: 'country', campaign: "''", key: 'key', period: 'blocks' },
  hourly: { table: 'campaign_hourly_stats_v1', dimension: null, campaign: "''", key: "formatDateTime(hour, '%Y-%m-%dT%H:00:00Z', 'UTC')", period: 'hour' },
};

export interface BreakdownSums {
  /** The campaign of a line item or creative row; '' for the other breakdowns. */
  campaignId: string;
  key: string;
  sums: MetricSums;
}

const breakdownRows = z.array(
  z.object({ row_campaign: z.string(), row_key: z.string(), ...rollupSumsColumns }),
);

/**
 * Valid-traffic sums per breakdown key over the UTC days dateFrom..dateTo for the given campaigns.
 * Both rollups are sorted so that the dimension, block (or campaign and hour) conditions narrow the read;
 * sum() over GROUP BY makes their lazily merged rows whole.
 */
export async function breakdownSums(
  ch: ClickHouse,
  dimension: BreakdownDimension,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
): Promise<BreakdownSums[]> {
  const source = sources[dimension];
  const window =
    source.period === 'blocks'
      ? '(span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})'
      : "hour >= toDateTime({date_from:Date}, 'UTC') AND hour < toDateTime({date_to:Date}, 'UTC') + INTERVAL 1 DAY";
  // Table, expressions and conditions come from the fixed table above (the type allows nothing
  // else), never from input. Aliases differ from the column names: an alias campaign_id would
  // replace the UUID column in WHERE with its string.
  const result = await ch.client.query({
    query: `
      SELECT
        ${source.campaign} AS row_campaign,
        ${source.key} AS row_key,
        sum(impressions) AS total_impressions,
        sum(clicks) AS total_clicks,
        sum(conversions) AS total_conversions,
        toString(sum(spend_nanos)) AS total_spend_nanos,
        toString(sum(revenue_nanos)) AS total_revenue_nanos
      FROM ${source.table}
      WHERE ${source.dimension === null ? '' : 'dimension = {dimension:String} AND '}${window}
        AND campaign_id IN {campaign_ids:Array(UUID)}
      GROUP BY row_campaign, row_key
      SETTINGS max_execution_time = 30`,
    query_params: {
      dimension: source.dimension,
      campaign_ids: campaignIds,
      ...(source.period === 'blocks' ? blockParams(dayBlocks(dateFrom, dateTo)) : { date_from: dateFrom, date_to: dateTo }),
    },
    format: 'JSONEachRow',
  });
  return breakdownRows.parse(await result.json()).map((row) => ({
    campaignId: row.row_campaign,
    key: row.row_key,
    sums: sumsOfRow(row),
  }));
}
