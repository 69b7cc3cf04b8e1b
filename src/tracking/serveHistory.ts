import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';

const historyRow = z.object({
  serve_id: z.string(),
  first_impression_ms: z.coerce.number(),
  impressions: z.coerce.number(),
  impression_counted: z.coerce.number(),
  click_counted: z.coerce.number(),
});

export interface ServeHistory {
  /**
   * The serve's valid (billed) impression, ms since the epoch; 0 when there is none. An invalid one (a
   * data center, a bot, a script fetch) is no reader seeing the ad: a click after it alone is
   * click_without_impression.
   */
  impressionAt: number;
  /** A valid (billed) impression was already counted for the serve. */
  impressionCounted: boolean;
  /** A valid (billed) click was already counted for the serve. */
  clickCounted: boolean;
}

export const NO_HISTORY: ServeHistory = { impressionAt: 0, impressionCounted: false, clickCounted: false };

/**
 * What ClickHouse holds about a batch of serves (clickhouse/0006: one primary-key range per serve).
 * A serve with no row is absent from the answer: nothing was recorded for it.
 */
export async function findServeHistories(ch: ClickHouse, serveIds: string[]): Promise<Map<string, ServeHistory>> {
  const result = await ch.client.query({
    query: `SELECT serve_id,
                   toInt64(toUnixTimestamp64Milli(minIf(event_time, type = 'impression' AND counted = 1))) AS first_impression_ms,
                   countIf(type = 'impression' AND counted = 1) AS impressions,
                   max(type = 'impression' AND counted = 1) AS impression_counted,
                   max(type = 'click' AND counted = 1) AS click_counted
            FROM serve_events_v1
            WHERE serve_id IN {serve_ids:Array(String)}
            GROUP BY serve_id`,
    query_params: { serve_ids: serveIds },
    format: 'JSONEachRow',
  });
  const histories = new Map<string, ServeHistory>();
  for (const raw of await result.json()) {
    const row = historyRow.parse(raw);
    histories.set(row.serve_id, {
      impressionAt: row.impressions > 0 ? row.first_impression_ms : 0,
      impressionCounted: row.impression_counted > 0,
      clickCounted: row.click_counted > 0,
    });
  }
  return histories;
}
