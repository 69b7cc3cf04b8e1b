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
  | 'AUTO_REVOCATION_MIN_USERS'
  | 'AUTO_REVOCATION_WINDOWS'
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
  /** Distinct users (keyed user.id of the serve) of the server-side serves; serves without user.id add none. */
  users: number;
  /** Distinct users of all the serves. */
  allUsers: number;
}

const countsRow = z.object({
  placement_id: z.string(),
  /** 0 for the latest window, 1 for the one before it, and so on. */
  window: z.coerce.number(),
  datacenter: z.coerce.number(),
  total: z.coerce.number(),
  networks: z.coerce.number(),
  users: z.coerce.number(),
  allUsers: z.coerce.number(),
});

/**
 * What the counts of one window of a certified placement call for (judgeServerSideTraffic revokes
 * only on `revoke` in each of AUTO_REVOCATION_WINDOWS windows on end). Anyone who can chat on the publisher's site
 * gets serves of its placement and can fetch their pixels from a cloud server, so that alone never
 * revokes: `revoke` needs what the publisher's own backend fetching the pixels shows and one reader
 * cannot make, server-side serves that are most of a sizeable window's traffic (a share of at least
 * AUTO_REVOCATION_MIN_IMPRESSIONS serves) and of its users, and at least AUTO_REVOCATION_MIN_USERS
 * users among them. `flag` (an operator looks; nothing changes) is any lesser sign: at least
 * AUTO_REVOCATION_DATACENTER_IMPRESSIONS server-side serves, or the share without enough users.
 */
export function serverSideVerdict(counts: Omit<ImpressionCounts, 'networks'>, thresholds: AutoRevocationThresholds): 'revoke' | 'flag' | '' {
  const share = thresholds.AUTO_REVOCATION_DATACENTER_SHARE;
  const mostServes = counts.total >= thresholds.AUTO_REVOCATION_MIN_IMPRESSIONS && counts.datacenter / counts.total >= share;
  const mostUsers = counts.users >= thresholds.AUTO_REVOCATION_MIN_USERS && counts.users / counts.allUsers >= share;
  if (mostServes && mostUsers) return 'revoke';
  if (mostServes || counts.datacenter >= thresholds.AUTO_REVOCATION_DATACENTER_IMPRESSIONS) return 'flag';
  return '';
}

interface ServerSideTraffic {
  revoked: string[];
  /** Placements that show server-side traffic short of revocation, with why: for an operator to review. */
  flagged: Array<{ placement_id: string; reason: string }>;
}

/**
 * Judges every certified placement on its serves whose pixel was fetched by a server (ivt datacenter
 * or server_side) against all its serves and users, counting verified tokens only: a forged link
 * (bad_token) says whatever placement its forger wrote into it, so a publisher firing forged pixels
 * naming its own placement would otherwise dilute its server-side share. Revokes those
 * serverSideVerdict says to revoke in every one of the last AUTO_REVOCATION_WINDOWS windows, and returns those whose latest window it flags, or revokes without the windows before. One
 * reader can make a small placement's latest window look like its publisher's backend (ten resets of
 * a cookie the site keys user.id on, a hundred serves' pixels fetched from a cloud server); making
 * every window of hours on end look like it is a sustained effort, while an operator is told from
 * the first window on. Only impressions since the placement's latest certification count, so a
 * re-certified placement is judged on its traffic since (and its windows before are empty). Safe on
 * several instances at once: changeCertification moves a placement from certified only once.
 */
export async function judgeServerSideTraffic(db: Postgres, ch: ClickHouse, thresholds: AutoRevocationThresholds, nowMs = Date.now()): Promise<ServerSideTraffic> {
  const judged: ServerSideTraffic = { revoked: [], flagged: [] };
  const { rows: certified } = await db.query<{ id: string; certified_at: Date }>(
    `SELECT p.id, max(h.created_at) AS certified_at
     FROM placements p JOIN placement_certification_history h ON h.placement_id = p.id AND h.to_state = 'certified'
     WHERE p.certification = 'certified'
     GROUP BY p.id`,
  );
  if (certified.length === 0) return judged;
  const windowMs = thresholds.AUTO_REVOCATION_WINDOW_MINUTES * 60_000;
  const windows = thresholds.AUTO_REVOCATION_WINDOWS;
  const result = await ch.client.query({
    query: `SELECT placement_id, window,
                   toString(uniqExactIf(serve_id, server_side)) AS datacenter,
                   toString(uniqExact(serve_id)) AS total,
                   toString(uniqExactIf(cutIPv6(toIPv6OrDefault(ip), 10, 1), server_side)) AS networks,
                   toString(uniqExactIf(user_key, server_side AND user_key != '')) AS users,
                   toString(uniqExactIf(user_key, user_key != '')) AS allUsers
            FROM (
              SELECT placement_id, serve_id, ip, user_key, ivt IN {server_side:Array(String)} AS server_side,
                     least(intDiv(greatest({now:Int64} - toUnixTimestamp64Milli(event_time), 0), {window_ms:Int64}), {last_window:Int64}) AS window
              FROM events_v1
              WHERE type = 'impression'
                AND ivt != 'bad_token'
                AND event_time >= fromUnixTimestamp64Milli({window_start:Int64}, 'UTC')
                AND placement_id IN {ids:Array(String)}
                AND toUnixTimestamp64Milli(event_time) >= transform(placement_id, {ids:Array(String)}, {since:Array(Int64)}, toInt64(0))
            )
            GROUP BY placement_id, window`,
    query_params: {
      now: nowMs,
      window_ms: windowMs,
      last_window: windows - 1,
      window_start: nowMs - windows * windowMs,
      server_side: serverSideReasons,
      ids: certified.map((placement) => placement.id),
      since: certified.map((placement) => new Date(placement.certified_at).getTime()),
    },
    format: 'JSONEachRow',
  });
  /** Each placement's windows whose verdict is `revoke`, and the latest window's counts. */
  const placements = new Map<string, { latest?: ImpressionCounts; revoking: Set<number> }>();
  for (const row of await result.json()) {
    const { placement_id, window, ...counts } = countsRow.parse(row);
    let placement = placements.get(placement_id);
    if (placement === undefined) placements.set(placement_id, (placement = { revoking: new Set() }));
    if (window === 0) placement.latest = counts;
    if (serverSideVerdict(counts, thresholds) === 'revoke') placement.revoking.add(window);
  }
  for (const [placement_id, { latest, revoking }] of placements) {
    if (latest === undefined) continue;
    const verdict = serverSideVerdict(latest, thresholds);
    if (verdict === '') continue;
    // The windows on end, back from the latest, that meet the rule: what revocation counts (all of
    // them), and what the reason says of it. An earlier window cut off by one that does not meet it
    // brings revocation no closer.
    let revokingWindows = 0;
    while (revoking.has(revokingWindows)) revokingWindows += 1;
    const sustained = revokingWindows === windows;
    const reason =
      `${latest.datacenter} of ${latest.total} serves (of ${latest.users} of ${latest.allUsers} users) in the last ` +
      `${thresholds.AUTO_REVOCATION_WINDOW_MINUTES} minutes had their impression requested from data-center addresses ` +
      `or by server code (server-side pixel requests, from ${latest.networks} client networks)` +
      (sustained && windows > 1 ? `, and most serves and users of each of the ${windows - 1} windows before it did` : '') +
      `; revocation takes ${thresholds.AUTO_REVOCATION_DATACENTER_SHARE * 100}% of at least ${thresholds.AUTO_REVOCATION_MIN_IMPRESSIONS} serves and of ` +
      `their users, at least ${thresholds.AUTO_REVOCATION_MIN_USERS} of them` +
      (windows > 1 ? `, in each of ${windows} windows of ${thresholds.AUTO_REVOCATION_WINDOW_MINUTES} minutes on end` : '') +
      (sustained || windows === 1 ? '' : ` (${revokingWindows} of them so far)`);
    if (!sustained) {
      judged.flagged.push({ placement_id, reason });
      continue;
    }
    const placement = await changeCertification(db, placement_id, 'revoked', AUTO_REVOCATION_ACTOR, reason, ['certified']);
    if (placement?.certification === 'revoked') judged.revoked.push(placement_id);
  }
  return judged;
}
