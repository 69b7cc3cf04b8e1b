import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';

/** One stored event of a campaign, valid or not, as the audit export shows it. */
export interface ExportedEvent {
  time: string;
  event_id: string;
  type: string;
  line_item_id: string;
  placement_id: string;
  /** The client address with its host part zeroed: /24 for IPv4, /48 for IPv6. */
  masked_ip: string;
  ip_class: string;
  /** ISO country of the address, `unknown` when it could not be told. */
  country: string;
  /** Why it was invalid traffic; null for a valid event. */
  ivt_reason: string | null;
  /** What the advertiser was billed for it, exact (nano-USD precision); 0 for invalid traffic and unbilled events. */
  cost_usd: number;
  /** Why a valid event was not billed (a budget's or the frequency cap's billing ceiling, outside its line item's countries, or for a conversion its campaign deleted: unbilledReasons.ts); null when billed or invalid. */
  unbilled_reason: string | null;
  /** The creative served (a conversion's is its click's); the nil UUID for imported events, as in the creative breakdown. */
  creative_id: string;
  /** The revenue the advertiser reported with a conversion, in USD (exact); 0 for impressions and clicks. */
  revenue_usd: number;
}

export const exportedEventColumns = [
  'time',
  'event_id',
  'type',
  'line_item_id',
  'placement_id',
  'masked_ip',
  'ip_class',
  'country',
  'ivt_reason',
  'cost_usd',
  'unbilled_reason',
  // Added after the columns above, so that a reader of the CSV by position keeps working.
  'creative_id',
  'revenue_usd',
] as const satisfies ReadonlyArray<keyof ExportedEvent>;

const eventRows = z.array(
  z.object({
    row_time: z.string(),
    row_event_id: z.string(),
    type: z.string(),
    row_line_item_id: z.string(),
    placement_id: z.string(),
    ip: z.string(),
    ip_class: z.string(),
    country: z.string(),
    ivt: z.string(),
    row_cost_nanos: z.string().regex(/^-?\d+$/),
    unbilled: z.string(),
    row_creative_id: z.string(),
    row_revenue_nanos: z.string().regex(/^-?\d+$/),
  }),
);

/**
 * Every event of the campaign in the window, oldest first, in pages of pageSize (EXPORT_PAGE_ROWS). Each page
 * continues after the last (time, event id) of the one before (keyset paging, never OFFSET), and
 * events_v1 is ordered by (campaign_id, event_time), so every page reads only its own granules.
 * Aliases differ from column names: WHERE and ORDER BY would otherwise read the aliased strings.
 */
export async function* campaignEvents(
  ch: ClickHouse,
  request: { campaignId: string; dateFrom: string; dateTo: string },
  pageSize: number,
): AsyncGenerator<ExportedEvent[]> {
  let after = { time: '1970-01-01 00:00:00.000', eventId: '00000000-0000-0000-0000-000000000000' };
  for (;;) {
    const result = await ch.client.query({
      query: `
        SELECT
          toString(event_time) AS row_time,
          toString(event_id) AS row_event_id,
          type,
          toString(line_item_id) AS row_line_item_id,
          placement_id,
          ip,
          ip_class,
          country,
          ivt,
          toString(cost_nanos) AS row_cost_nanos,
          unbilled,
          toString(creative_id) AS row_creative_id,
          toString(revenue_nanos) AS row_revenue_nanos
        FROM events_v1
        WHERE campaign_id = {campaign_id:UUID}
          AND event_time >= toDateTime64({date_from:Date}, 3, 'UTC')
          AND event_time < toDateTime64({date_to:Date}, 3, 'UTC') + INTERVAL 1 DAY
          AND (event_time, event_id) > (toDateTime64({after_time:String}, 3, 'UTC'), {after_id:UUID})
        ORDER BY event_time, event_id
        LIMIT {page_size:UInt32}
        SETTINGS max_execution_time = 30`,
      query_params: {
        campaign_id: request.campaignId,
        date_from: request.dateFrom,
        date_to: request.dateTo,
        after_time: after.time,
        after_id: after.eventId,
        page_size: pageSize,
      },
      format: 'JSONEachRow',
    });
    const rows = eventRows.parse(await result.json());
    if (rows.length === 0) return;
    // Nothing of the parsed rows is used after the yield, so a download waiting on its client
    // keeps the page's events only, not the rows they were made of as well.
    const last = rows.at(-1)!;
    const more = rows.length === pageSize;
    yield rows.map(exportedEvent);
    if (!more) return;
    after = { time: last.row_time, eventId: last.row_event_id };
  }
}

function exportedEvent(row: z.output<typeof eventRows>[number]): ExportedEvent {
  return {
    time: `${row.row_time.replace(' ', 'T')}Z`,
    event_id: row.row_event_id,
    type: row.type,
    line_item_id: row.row_line_item_id,
    placement_id: row.placement_id,
    masked_ip: maskedAddress(row.ip),
    ip_class: row.ip_class,
    country: row.country === '' ? 'unknown' : row.country,
    ivt_reason: row.ivt === '' ? null : row.ivt,
    cost_usd: usdOfNanos(row.row_cost_nanos),
    unbilled_reason: row.unbilled === '' ? null : row.unbilled,
    creative_id: row.row_creative_id,
    revenue_usd: usdOfNanos(row.row_revenue_nanos),
  };
}

/** The network part only: an audit needs to see where traffic came from, not who it was. */
export function maskedAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return '';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') {
    const [a, b, c] = address.toByteArray();
    return `${a}.${b}.${c}.0`;
  }
  const [p0, p1, p2] = (address as ipaddr.IPv6).parts;
  return new ipaddr.IPv6([p0!, p1!, p2!, 0, 0, 0, 0, 0]).toString();
}

/** Nano-USD to USD without rounding: 9 decimals at most, exact in a double for any real cost. */
function usdOfNanos(nanos: string): number {
  const negative = nanos.startsWith('-');
  const digits = (negative ? nanos.slice(1) : nanos).padStart(10, '0');
  return Number(`${negative ? '-' : ''}${digits.slice(0, -9)}.${digits.slice(-9)}`);
}
