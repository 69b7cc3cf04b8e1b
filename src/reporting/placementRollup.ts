import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';

/** Per placement (or publisher) and UTC day, from placement_daily_stats_v1 and placement_serve_counts_v1 (clickhouse/0004, 0016). */
export interface PlacementDaySums {
  key: string;
  day: string;
  impressions: number;
  clicks: number;
  spendNanos: bigint;
  invalidImpressions: number;
  /** Of invalidImpressions, those stored as bad_token (clickhouse/0016). */
  forgedImpressions: number;
  invalidClicks: number;
}

export interface PlacementDayServes {
  key: string;
  day: string;
  requests: number;
  filled: number;
}

const count = z.coerce.number();
const nanos = z.string().regex(/^-?\d+$/).transform(BigInt);
const statsRows = z.array(
  z.object({ key: z.string(), row_day: z.string(), total_impressions: count, total_clicks: count, total_spend_nanos: nanos, total_invalid_impressions: count, total_forged_impressions: count, total_invalid_clicks: count }),
);
const servesRows = z.array(z.object({ key: z.string(), row_day: z.string(), total_requests: count, total_filled: count }));

/**
 * What a filter on the placement rollups can be: the given placements of one publisher (a publisher's
 * report), or everything (the operator's totals, keyed by publisher).
 */
export type PlacementScope = { publisherId: string; placementIds: string[] } | { everything: true };

function scopeCondition(scope: PlacementScope, withPublisher: boolean): string {
  if ('everything' in scope) return '1';
  const placements = 'placement_id IN {placement_ids:Array(String)}';
  return withPublisher ? `${placements} AND publisher_id = {publisher_id:UUID}` : placements;
}

function scopeParams(scope: PlacementScope): Record<string, unknown> {
  return 'everything' in scope ? {} : { placement_ids: scope.placementIds, publisher_id: scope.publisherId };
}

/**
 * Valid and invalid events per placement and day over the window, keyed by placement (a publisher's
 * scope) or by publisher (everything: the operator needs each publisher's share). Rows of the
 * SummingMergeTree merge lazily, so sum() ... GROUP BY makes them whole. Aliases differ from the
 * column names, which WHERE would otherwise read as the aliased expressions.
 */
export async function placementDaySums(ch: ClickHouse, scope: PlacementScope, dateFrom: string, dateTo: string): Promise<PlacementDaySums[]> {
  const key = 'everything' in scope ? 'toString(publisher_id)' : 'placement_id';
  const result = await ch.client.query({
    query: `
      SELECT
        ${key} AS key,
        toString(day) AS row_day,
        sum(impressions) AS total_impressions,
        sum(clicks) AS total_clicks,
        toString(sum(spend_nanos)) AS total_spend_nanos,
        sum(invalid_impressions) AS total_invalid_impressions,
        sum(forged_impressions) AS total_forged_impressions,
        sum(invalid_clicks) AS total_invalid_clicks
      FROM placement_daily_stats_v1
      WHERE ${scopeCondition(scope, true)} AND day BETWEEN {date_from:Date} AND {date_to:Date}
      GROUP BY key, row_day
      SETTINGS max_execution_time = 30`,
    query_params: { ...scopeParams(scope), date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  return statsRows.parse(await result.json()).map((row) => ({
    key: row.key,
    day: row.row_day,
    impressions: row.total_impressions,
    clicks: row.total_clicks,
    spendNanos: row.total_spend_nanos,
    invalidImpressions: row.total_invalid_impressions,
    forgedImpressions: row.total_forged_impressions,
    invalidClicks: row.total_invalid_clicks,
  }));
}

/** Serve calls and filled ones per placement (or, for everything, in total: key '') and day. */
export async function placementDayServes(ch: ClickHouse, scope: PlacementScope, dateFrom: string, dateTo: string): Promise<PlacementDayServes[]> {
  const key = 'everything' in scope ? "''" : 'placement_id';
  const result = await ch.client.query({
    query: `
      SELECT ${key} AS key, toString(day) AS row_day, sum(requests) AS total_requests, sum(filled) AS total_filled
      FROM placement_serve_counts_v1
      WHERE ${scopeCondition(scope, false)} AND day BETWEEN {date_from:Date} AND {date_to:Date}
      GROUP BY key, row_day
      SETTINGS max_execution_time = 30`,
    query_params: { ...scopeParams(scope), date_from: dateFrom, date_to: dateTo },
    format: 'JSONEachRow',
  });
  return servesRows.parse(await result.json()).map((row) => ({ key: row.key, day: row.row_day, requests: row.total_requests, filled: row.total_filled }));
}
