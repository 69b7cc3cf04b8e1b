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

/**
 * The serve's billed click, for a later click of the same serve (stored `duplicate`): the first
 * valid click of its serve before it, with its click id; undefined when the serve has none (its
 * first click was itself invalid). Read by the serve id's bloom filter within the campaign's rows.
 */
export async function billedClickOfServe(ch: ClickHouse, duplicate: StoredClick): Promise<{ clickId: string; click: StoredClick } | undefined> {
  const result = await ch.client.query({
    query: `SELECT toString(event_id) AS click_id, toInt64(toUnixTimestamp64Milli(event_time)) AS time_ms, serve_id, campaign_id,
                   line_item_id, creative_id, placement_id,
                   publisher_id, price_model, price_nanos, ivt, country
            FROM events_v1
            WHERE campaign_id = {campaign_id:UUID} AND type = 'click' AND serve_id = {serve_id:String} AND ivt = ''
              AND event_time <= fromUnixTimestamp64Milli({time_ms:Int64})
            ORDER BY event_time
            LIMIT 1`,
    query_params: { campaign_id: duplicate.campaign_id, serve_id: duplicate.serve_id, time_ms: duplicate.time_ms },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  if (rows[0] === undefined) return undefined;
  const { click_id, ...click } = billedClickRow.parse(rows[0]);
  return { clickId: click_id, click };
}

const billedClickRow = clickRow.extend({ click_id: z.string() });
