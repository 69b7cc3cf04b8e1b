import type { ClickHouse } from '../src/store/clickhouse.js';

export const DAYS = 92;
export const DAY_MS = 86_400_000;
/** Rows per INSERT ... SELECT: bounds the memory one statement needs. */
const ROWS_PER_INSERT = 10_000_000;

export interface GeneratedEvents {
  campaignIds: string[];
  /** Line item i belongs to campaign i. */
  lineItemIds: string[];
  events: number;
  /** Midnight UTC of the last day. */
  todayMs: number;
  serveIdPrefix?: string;
  /** The publisher owning the 40 placements the events fall on; a fixed id and bench-chat-N ids otherwise. */
  publisher?: { id: string; placementIds: string[] };
}

/** Events of a part of the time instead of the 92 days: what a later day adds to generated data. */
export interface EventSpan {
  /** Where the span starts (ms since the epoch, UTC) and how long it lasts. */
  startMs: number;
  spanMs: number;
  /** Row number of the first event: the rows of a span must not repeat those of the 92 days (their serve ids and hashes). */
  firstRow: number;
  /** Distinct users the events are drawn from: those of the 92 days, so a day's users are the same people. */
  users: number;
}

/** Countries the events' addresses are said to be in ('' = unknown), and how many distinct users there are. */
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'ES', 'IT', ''];
const EVENTS_PER_USER = 20;

/**
 * Events for the given campaigns (line item i belongs to campaign i) spread uniformly over the
 * 92 days ending today. Everything is derived from the row number with cityHash64, so a run is
 * reproducible and ClickHouse generates rows as fast as it can write them.
 */
export async function generateEvents(ch: ClickHouse, generated: GeneratedEvents): Promise<void> {
  const { events, todayMs } = generated;
  const span: EventSpan = { startMs: todayMs - (DAYS - 1) * DAY_MS, spanMs: DAYS * DAY_MS, firstRow: 0, users: usersOf(events) };
  await generateEventSpan(ch, generated, span);
}

/** How many distinct users the generated events of the 92 days come from. */
export function usersOf(events: number): number {
  return Math.max(1, Math.floor(events / EVENTS_PER_USER));
}

/** The events of generateEvents (`todayMs` aside), spread uniformly over the given span instead of the 92 days. */
export async function generateEventSpan(
  ch: ClickHouse,
  { campaignIds, lineItemIds, events, serveIdPrefix = '', publisher }: GeneratedEvents,
  { startMs, spanMs, firstRow, users }: EventSpan,
): Promise<void> {
  const placementIds = publisher?.placementIds ?? Array.from({ length: 40 }, (_, index) => `bench-chat-${index}`);
  for (let offset = firstRow; offset < firstRow + events; offset += ROWS_PER_INSERT) {
    await ch.client.command({
      query: `
        INSERT INTO events_v1 (event_id, event_time, type, source, serve_id, campaign_id, line_item_id, creative_id,
          placement_id, publisher_id, price_model, cost_nanos, revenue_nanos, click_id, ip, ip_class, ip_network, user_agent, ivt, country, user_key)
        SELECT
          generateUUIDv4(number) AS event_id,
          fromUnixTimestamp64Milli(toInt64({start_ms:Int64} + cityHash64(number, 1) % {span_ms:UInt64}), 'UTC') AS event_time,
          multiIf(kind < 9850, 'impression', kind < 9990, 'click', 'conversion') AS type,
          multiIf(type = 'impression', 'pixel', type = 'click', 'click', 'conversion_api') AS source,
          concat({serve_prefix:String}, toString(number)) AS serve_id,
          {campaign_ids:Array(UUID)}[campaign + 1] AS campaign_id,
          {line_item_ids:Array(UUID)}[campaign + 1] AS line_item_id,
          {line_item_ids:Array(UUID)}[campaign + 1] AS creative_id,
          {placement_ids:Array(String)}[cityHash64(number, 5) % length({placement_ids:Array(String)}) + 1] AS placement_id,
          {publisher_id:UUID} AS publisher_id,
          if(campaign % 2 = 0, 'tCPM', 'CPC') AS price_model,
          multiIf(ivt != '', 0,
                  type = 'impression' AND price_model = 'tCPM', 2500000,
                  type = 'click' AND price_model = 'CPC', 800000000,
                  0) AS cost_nanos,
          if(type = 'conversion' AND ivt = '', 40000000000, 0) AS revenue_nanos,
          toUUID('00000000-0000-0000-0000-000000000000') AS click_id,
          IPv4NumToString(toUInt32(cityHash64(number, 6) % 4294967296)) AS ip,
          if(ivt = 'datacenter', 'datacenter', 'public') AS ip_class,
          if(ivt = 'datacenter', 'AS16509 Amazon Web Services', '') AS ip_network,
          if(ivt = 'bot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
             'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36') AS user_agent,
          multiIf(quality < 90, '', quality < 96, 'datacenter', 'bot') AS ivt,
          {countries:Array(String)}[cityHash64(number, 7) % length({countries:Array(String)}) + 1] AS country,
          concat('bench-user-', toString(cityHash64(number, 8) % {users:UInt64})) AS user_key
        FROM (
          SELECT number, cityHash64(number, 2) % 10000 AS kind, cityHash64(number, 3) % 100 AS quality,
                 cityHash64(number, 4) % {campaigns:UInt32} AS campaign
          FROM numbers({offset:UInt64}, {count:UInt64})
        )`,
      query_params: {
        start_ms: startMs,
        span_ms: spanMs,
        campaign_ids: campaignIds,
        line_item_ids: lineItemIds,
        campaigns: campaignIds.length,
        serve_prefix: serveIdPrefix,
        placement_ids: placementIds,
        publisher_id: publisher?.id ?? '00000000-0000-4000-8000-000000000001',
        countries: COUNTRIES,
        users,
        offset,
        count: Math.min(ROWS_PER_INSERT, firstRow + events - offset),
      },
    });
  }
}
