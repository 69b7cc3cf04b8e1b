import { z } from 'zod';
import type { Config } from '../config.js';
import type { Postgres } from '../store/postgres.js';
import type { ClickHouse } from '../store/clickhouse.js';
import { changeCertification } from './placementRepository.js';
import { serverSideReasons } from '../ivt/ivtReasons.js';

export type AutoRevocationThresholds = Pick<
  Config,
  | 'AUTO_REVOCATION_WINDOW_MINUTES'
  | 'AUTO_REVOCATION_DATACENTER_IMPRESSIONS'
  | 'AUTO_REVOCATION_DATACENTER_SHARE'
  | 'AUTO_REVOCATION_MIN_IMPRESSIONS'
>;

const AUTO_REVOCATION_ACTOR = 'auto-revocation';

/**
 * Counted in distinct serves, never in requests: a serve's token is signed, so replaying one link
 * (20 times, from 20 clouds) is one serve, while a backend that fetches the pixel of every serve it
 * gets shows as many serves as it had.
 */
export interface ImpressionCounts {
  /** Serves with at least one server-side impression (datacenter or server_side). */
  datacenter: number;
  /** Serves with at least one impression. */
  total: number;
  /** Client networks (IPv4 /24, IPv6 /48) those server-side impressions came from; said in the reason. */
  networks: number;
}

const countsRow = z.object({
  placement_id: z.string(),
  datacenter: z.coerce.number(),
  total: z.coerce.number(),
  networks: z.coerce.number(),
});

/** True when a certified placement's recent impressions show server-side traffic. */
export function showsServerSideTraffic(counts: Pick<ImpressionCounts, 'datacenter' | 'total'>, thresholds: AutoRevocationThresholds): boolean {
  if (counts.datacenter >= thresholds.AUTO_REVOCATION_DATACENTER_IMPRESSIONS) return true;
  return (
    counts.total >= thresholds.AUTO_REVOCATION_MIN_IMPRESSIONS &&
    counts.datacenter / counts.total >= thresholds.AUTO_REVOCATION_DATACENTER_SHARE
  );
}

/**
 * Revokes every certified placement whose serves in the window had their pixel fetched by a server
 * (ivt datacenter or server_side; tokens verified, so the serves are real) past the thresholds.
 * Only impressions since the placement's latest certification count, so a re-certified placement
 * is judged on its traffic since. Returns the revoked placement ids. Safe on several instances at
 * once: changeCertification moves a placement from certified only once.
 */
export async function revokeServerSideTraffic(db: Postgres, ch: ClickHouse, thresholds: AutoRevocationThresholds, nowMs = Date.now()): Promise<string[]> {
  const { rows: certified } = await db.query<{ id: string; certified_at: Date }>(
    `SELECT p.id, max(h.created_at) AS certified_at
     FROM placements p JOIN placement_certification_history h ON h.placement_id = p.id AND h.to_state = 'certified'
     WHERE p.certification = 'certified'
     GROUP BY p.id`,
  );
  if (certified.length === 0) return [];
  const windowStartMs = nowMs - thresholds.AUTO_REVOCATION_WINDOW_MINUTES * 60_000;
  const result = await ch.client.query({
    query: `SELECT placement_id,
                   toString(uniqExactIf(serve_id, ivt IN {server_side:Array(String)})) AS datacenter,
                   toString(uniqExact(serve_id)) AS total,
                   toString(uniqExactIf(cutIPv6(toIPv6OrDefault(ip), 10, 1), ivt IN {server_side:Array(String)})) AS networks
            FROM events_v1
            WHERE type = 'impression'
              AND event_time >= fromUnixTimestamp64Milli({window_start:Int64}, 'UTC')
              AND placement_id IN {ids:Array(String)}
              AND toUnixTimestamp64Milli(event_time) >= transform(placement_id, {ids:Array(String)}, {since:Array(Int64)}, toInt64(0))
            GROUP BY placement_id`,
    query_params: {
      window_start: windowStartMs,
      server_side: serverSideReasons,
      ids: certified.map((placement) => placement.id),
      since: certified.map((placement) => new Date(placement.certified_at).getTime()),
    },
    format: 'JSONEachRow',
  });
  const revoked: string[] = [];
  for (const row of await result.json()) {
    const { placement_id, ...counts } = countsRow.parse(row);
    if (!showsServerSideTraffic(counts, thresholds)) continue;
    const minutes = thresholds.AUTO_REVOCATION_WINDOW_MINUTES;
    const reason =
      `${counts.datacenter} of ${counts.total} serves in the last ${minutes} minutes had their impression requested from data-center addresses ` +
      `or by server code (server-side pixel requests, from ${counts.networks} client networks); the limit is ` +
      `${thresholds.AUTO_REVOCATION_DATACENTER_IMPRESSIONS} serves, or ${thresholds.AUTO_REVOCATION_DATACENTER_SHARE * 100}% of at least ` +
      `${thresholds.AUTO_REVOCATION_MIN_IMPRESSIONS}`;
    const placement = await changeCertification(db, placement_id, 'revoked', AUTO_REVOCATION_ACTOR, reason, ['certified']);
    if (placement?.certification === 'revoked') revoked.push(placement_id);
  }
  return revoked;
}
