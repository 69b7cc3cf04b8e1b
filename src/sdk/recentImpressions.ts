import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { impressionOrigin, maskIp, userAgentFamily, type ImpressionOrigin } from './impressionOrigin.js';
import { integrationFaultReasons } from '../ivt/ivtReasons.js';
import { pixelRule, requestedAs, type PixelRule, type RequestedAs } from './pixelRequestVerdict.js';

export interface RecentImpression {
  time: string;
  origin: ImpressionOrigin;
  ip_masked: string;
  ip_class: string;
  /** The data-center or relay network that matched (`AS16509 Amazon Web Services`); '' for others. */
  ip_network: string;
  /** Why it was classified invalid traffic; null when it counts; `filtered` in the publisher's view for a reason it is not told (publisherView). */
  ivt: string | null;
  user_agent_family: string;
  /** pixel for the browser pixel; import for events loaded through the admin import. */
  source: string;
  /** How the request was made, from its Sec-Fetch-Dest (kept as sent in fetch_dest; '' when absent). */
  requested_as: RequestedAs;
  fetch_dest: string;
}

export interface ImpressionSummary {
  impressions: number;
  from_browsers: number;
  from_servers: number;
  unknown: number;
  browser_share: number;
  server_share: number;
  valid: number;
  by_ip_class: Record<string, number>;
  by_ivt: Record<string, number>;
  by_requested_as: Record<string, number>;
  pixel_rule: PixelRule;
  /** Impressions of the whole window whose link named this placement but failed its signature; never listed or counted above. */
  forged: number;
}

const eventRow = z.object({
  time_ms: z.coerce.number(),
  ip: z.string(),
  ip_class: z.string(),
  ip_network: z.string(),
  ivt: z.string(),
  user_agent: z.string(),
  source: z.string(),
  fetch_dest: z.string(),
});

/**
 * The placement's latest impressions since `sinceMs`, newest first, as the integration check shows
 * them: no campaign or advertiser data, addresses masked. Reads the raw events (the rollups keep no
 * addresses); the placement_id bloom-filter index and the time condition keep the scan small.
 * A `bad_token` row is left out: its placement id is only what a link whose signature failed says,
 * and anyone holding one real link can write another placement's id into it, so it is no evidence
 * of how that placement fires its pixel (forgedImpressions counts them apart).
 */
export async function recentImpressions(ch: ClickHouse, placementId: string, sinceMs: number, limit: number): Promise<RecentImpression[]> {
  const result = await ch.client.query({
    query: `
      SELECT toUnixTimestamp64Milli(event_time) AS time_ms, ip, ip_class, ip_network, ivt, user_agent, source, fetch_dest
      FROM events_v1
      WHERE placement_id = {placement_id:String}
        AND type = 'impression'
        AND ivt != 'bad_token'
        AND event_time >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
      ORDER BY event_time DESC
      LIMIT {limit:UInt32}
      SETTINGS max_execution_time = 30`,
    query_params: { placement_id: placementId, since_ms: sinceMs, limit },
    format: 'JSONEachRow',
  });
  return z
    .array(eventRow)
    .parse(await result.json())
    .map((row) => {
      const family = userAgentFamily(row.user_agent);
      return {
        time: new Date(row.time_ms).toISOString(),
        origin: impressionOrigin(row.ip_class, row.ivt, family),
        ip_masked: maskIp(row.ip),
        ip_class: row.ip_class,
        ip_network: row.ip_network,
        ivt: row.ivt === '' ? null : row.ivt,
        user_agent_family: family,
        source: row.source,
        requested_as: requestedAs(row.fetch_dest),
        fetch_dest: row.fetch_dest,
      };
    });
}

/** The impressions as the placement's publisher sees them: a reason that is no integration fault becomes `filtered`. */
export function publisherView(impressions: RecentImpression[]): RecentImpression[] {
  return impressions.map((impression) =>
    impression.ivt === null || integrationFaultReasons.has(impression.ivt) ? impression : { ...impression, ivt: 'filtered' },
  );
}

/** How many impressions since `sinceMs` named this placement in a link whose signature failed (bad_token). */
export async function forgedImpressions(ch: ClickHouse, placementId: string, sinceMs: number): Promise<number> {
  const result = await ch.client.query({
    query: `
      SELECT count() AS forged
      FROM events_v1
      WHERE placement_id = {placement_id:String}
        AND type = 'impression'
        AND ivt = 'bad_token'
        AND event_time >= fromUnixTimestamp64Milli({since_ms:Int64}, 'UTC')
      SETTINGS max_execution_time = 30`,
    query_params: { placement_id: placementId, since_ms: sinceMs },
    format: 'JSONEachRow',
  });
  return z.array(z.object({ forged: z.coerce.number() })).length(1).parse(await result.json())[0]!.forged;
}

/** Counts over the listed impressions (and `forged`, counted over the window apart from them); shares are fractions (0 to 1) to four decimals, 0 when there are none. */
export function summarizeImpressions(impressions: readonly RecentImpression[], forged: number): ImpressionSummary {
  const count = (origin: ImpressionOrigin) => impressions.filter((impression) => impression.origin === origin).length;
  const share = (part: number) => (impressions.length === 0 ? 0 : Math.round((part / impressions.length) * 10_000) / 10_000);
  const tally = (values: string[]) => {
    const counts: Record<string, number> = {};
    for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
    return counts;
  };
  const fromBrowsers = count('browser');
  const fromServers = count('server');
  return {
    impressions: impressions.length,
    from_browsers: fromBrowsers,
    from_servers: fromServers,
    unknown: count('unknown'),
    browser_share: share(fromBrowsers),
    server_share: share(fromServers),
    valid: impressions.filter((impression) => impression.ivt === null).length,
    by_ip_class: tally(impressions.map((impression) => impression.ip_class)),
    by_ivt: tally(impressions.flatMap((impression) => (impression.ivt === null ? [] : [impression.ivt]))),
    by_requested_as: tally(impressions.map((impression) => impression.requested_as)),
    pixel_rule: pixelRule(impressions),
    forged,
  };
}
