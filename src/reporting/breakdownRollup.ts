import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { MetricSums } from './performanceMetrics.js';
import { rollupSumsColumns, sumsOfRow } from './rollupSums.js';

/** The advertiser breakdowns read from campaign_hourly_breakdown_v1 (clickhouse/0004). */
export type BreakdownDimension = 'line_item' | 'creative' | 'placement' | 'country' | 'hourly';

/**
 * What each breakdown groups by: `campaign` and `key` as SQL expressions. Line items and creatives
 * belong to one campaign, so their rows keep it (and their reach is exact per row); placements,
 * countries and hours are summed over the requested campaigns.
 */
const groupings: Record<BreakdownDimension | 'campaign', { campaign: string; key: string }> = {
  campaign: { campaign: 'toString(campaign_id)', key: "''" },
  line_item: { campaign: 'toString(campaign_id)', key: 'toString(line_item_id)' },
  creative: { campaign: 'toString(campaign_id)', key: 'toString(creative_id)' },
  placement: { campaign: "''", key: 'placement_id' },
  country: { campaign: "''", key: 'country' },
  hourly: { campaign: "''", key: "formatDateTime(hour, '%Y-%m-%dT%H:00:00Z', 'UTC')" },
};

export interface BreakdownSums {
  /** The campaign of a line item or creative row; '' for the other breakdowns. */
  campaignId: string;
  key: string;
  sums: MetricSums;
  /** Distinct users who saw a valid impression in the window (uniqCombined, see docs/reporting.md). */
  uniqueUsers: number;
}

const breakdownRows = z.array(
  z.object({ row_campaign: z.string(), row_key: z.string(), unique_users: z.coerce.number(), ...rollupSumsColumns }),
);

/**
 * Valid-traffic sums per breakdown key over the UTC days dateFrom..dateTo for the given campaigns.
 * The rollup is ordered by (campaign_id, hour), so both conditions narrow the read; sum() and
 * uniqCombinedMerge over GROUP BY make its lazily merged rows whole.
 */
export async function breakdownSums(
  ch: ClickHouse,
  dimension: BreakdownDimension | 'campaign',
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
): Promise<BreakdownSums[]> {
  const grouping = groupings[dimension];
  // The expressions come from the fixed table above (the type allows nothing else), never from input.
  // Their aliases differ from the column names: an alias campaign_id would replace the UUID column
  // in WHERE with its string.
  const result = await ch.client.query({
    query: `
      SELECT
        ${grouping.campaign} AS row_campaign,
        ${grouping.key} AS row_key,
        sum(impressions) AS total_impressions,
        sum(clicks) AS total_clicks,
        sum(conversions) AS total_conversions,
        toString(sum(spend_nanos)) AS total_spend_nanos,
        toString(sum(revenue_nanos)) AS total_revenue_nanos,
        uniqCombinedMerge(17)(users_state) AS unique_users
      FROM campaign_hourly_breakdown_v1
      WHERE campaign_id IN {campaign_ids:Array(UUID)}
        AND hour >= toDateTime({date_from:Date}, 'UTC')
        AND hour < toDateTime({date_to:Date}, 'UTC') + INTERVAL 1 DAY
      GROUP BY row_campaign, row_key
      SETTINGS max_execution_time = 30`,
    query_params: { campaign_ids: campaignIds, date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  return breakdownRows.parse(await result.json()).map((row) => ({
    campaignId: row.row_campaign,
    key: row.row_key,
    sums: sumsOfRow(row),
    uniqueUsers: row.unique_users,
  }));
}

/** Distinct users per campaign over the window, for the campaign breakdown's `unique_users`. */
export async function campaignReach(ch: ClickHouse, campaignIds: string[], dateFrom: string, dateTo: string): Promise<Map<string, number>> {
  const rows = await breakdownSums(ch, 'campaign', campaignIds, dateFrom, dateTo);
  return new Map(rows.map((row) => [row.campaignId, row.uniqueUsers]));
}
