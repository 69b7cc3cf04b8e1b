import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';

const clickRow = z.object({
  time_ms: z.coerce.number(),
  serve_id: z.string(),
  campaign_id: z.string(),
  line_item_id: z.string(),
  creative_id: z.string(),
  placement_id: z.string(),
  publisher_id: z.string(),
  price_model: z.string(),
  /** The price signed into the click's link (clickhouse/0012); 0 for a click stored before it. */
  price_nanos: z.coerce.number(),
  ivt: z.string(),
  /** The reader's country at the click ('' when it could not be told): the conversion's too. */
  country: z.string(),
});

export type StoredClick = z.infer<typeof clickRow>;

/**
 * The click a conversion quotes, by its click id (a click's event_id). Found once the event
 * pipeline has written it, normally within EVENT_FLUSH_INTERVAL_MS of the click.
 */
export async function findClick(ch: ClickHouse, clickId: string): Promise<StoredClick | undefined> {
  const result = await ch.client.query({
    query: `SELECT toInt64(toUnixTimestamp64Milli(event_time)) AS time_ms, serve_id, campaign_id,
                   line_item_id, creative_id, placement_id,
                   publisher_id, price_model, price_nanos, ivt, country
            FROM events_v1
            WHERE type = 'click' AND event_id = {click_id:UUID}
            ORDER BY event_time
            LIMIT 1`,
    query_params: { click_id: clickId },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  return rows[0] === undefined ? undefined : clickRow.parse(rows[0]);
}
