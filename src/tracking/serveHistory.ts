import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import type { TrackingClaims } from './trackingToken.js';

/** Clocks of instances differ a little; an impression is looked for from this long before the serve. */
const CLOCK_SKEW_MS = 60_000;

const historyRow = z.object({
  impressions: z.coerce.number(),
  first_impression_ms: z.coerce.number(),
  counted_clicks: z.coerce.number(),
});

export interface ServeHistory {
  /** First impression with a verified token (valid or not), ms since the epoch; 0 when there is none. */
  impressionAt: number;
  /** A valid click was already counted for the serve. */
  clickCounted: boolean;
}

/**
 * What ClickHouse holds about a serve, for a click whose serve this process does not remember (it was
 * served through another instance, or before a restart). The campaign and the serve time narrow the
 * scan to one campaign's recent granules; the serve_id bloom filter does the rest.
 */
export async function findServeHistory(ch: ClickHouse, claims: TrackingClaims): Promise<ServeHistory> {
  const result = await ch.client.query({
    query: `SELECT
              toUInt64(countIf(type = 'impression')) AS impressions,
              toInt64(toUnixTimestamp64Milli(minIf(event_time, type = 'impression'))) AS first_impression_ms,
              toUInt64(countIf(type = 'click' AND ivt = '')) AS counted_clicks
            FROM events_v1
            WHERE campaign_id = {campaign_id:UUID}
              AND serve_id = {serve_id:String}
              AND event_time >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')
              AND ivt NOT IN ('bad_token', 'expired_token')`,
    query_params: { campaign_id: claims.c, serve_id: claims.s, since: claims.t - CLOCK_SKEW_MS },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  const row = historyRow.parse(rows[0] ?? { impressions: 0, first_impression_ms: 0, counted_clicks: 0 });
  return { impressionAt: row.impressions > 0 ? row.first_impression_ms : 0, clickCounted: row.counted_clicks > 0 };
}
