import type { SqlExecutor } from '../store/postgres.js';
import { todayUtc } from '../utcDays.js';
import { NANOS_PER_USD_BIGINT } from '../money/nanoUsd.js';

/** What a publisher earns of the valid spend on its placements until the operator sets otherwise. */
const DEFAULT_REVENUE_SHARE = 0.7;

/** Shares are stored with 6 decimals: parts per million, so earnings stay integer arithmetic. */
export const SHARE_SCALE = 1_000_000n;
/** Earnings are summed exactly as nano-USD x share ppm: this many make a dollar. */
export const NANO_PPM_PER_USD = NANOS_PER_USD_BIGINT * SHARE_SCALE;
const DEFAULT_SHARE_PPM = BigInt(Math.round(DEFAULT_REVENUE_SHARE * 1_000_000));

/** A publisher's shares over time, oldest first: each applies from its UTC day until the next. */
export type ShareSchedule = Array<{ from: string; ppm: bigint }>;

/** The schedules of the given publishers (all of them for null). */
export async function revenueShareSchedules(db: SqlExecutor, publisherIds: string[] | null): Promise<Map<string, ShareSchedule>> {
  const { rows } = await db.query<{ publisher_id: string; effective_from: string; ppm: string }>(
    `SELECT publisher_id, to_char(effective_from, 'YYYY-MM-DD') AS effective_from, (revenue_share * 1000000)::bigint::text AS ppm
       FROM publisher_revenue_shares
      WHERE $1::uuid[] IS NULL OR publisher_id = ANY ($1::uuid[])
      ORDER BY publisher_id, effective_from`,
    [publisherIds],
  );
  const schedules = new Map<string, ShareSchedule>();
  for (const row of rows) {
    const schedule = schedules.get(row.publisher_id) ?? [];
    schedule.push({ from: row.effective_from, ppm: BigInt(row.ppm) });
    schedules.set(row.publisher_id, schedule);
  }
  return schedules;
}

/** The share in parts per million on a UTC day: the last one in effect, or the default before any. */
export function shareOn(schedule: ShareSchedule | undefined, date: string): bigint {
  let ppm = DEFAULT_SHARE_PPM;
  for (const entry of schedule ?? []) {
    if (entry.from > date) break;
    ppm = entry.ppm;
  }
  return ppm;
}

/** Sets the share from `effectiveFrom` on (replacing one set for that same day). */
export async function setRevenueShare(db: SqlExecutor, publisherId: string, share: number, effectiveFrom: string) {
  const { rows } = await db.query<{ revenue_share: string; effective_from: string }>(
    `INSERT INTO publisher_revenue_shares (publisher_id, effective_from, revenue_share) VALUES ($1, $2, $3)
     ON CONFLICT (publisher_id, effective_from) DO UPDATE SET revenue_share = EXCLUDED.revenue_share, created_at = now()
     RETURNING revenue_share::text, to_char(effective_from, 'YYYY-MM-DD') AS effective_from`,
    [publisherId, effectiveFrom, share],
  );
  return { publisher_id: publisherId, revenue_share: Number(rows[0]!.revenue_share), effective_from: rows[0]!.effective_from };
}

const asShare = (ppm: bigint) => Number(ppm) / Number(SHARE_SCALE);

/**
 * What the operator reads back (GET .../revenue-share): the share in effect today (the default,
 * with no `effective_from`, before any is set) and those set for later days, soonest first, so a
 * mistyped year or fraction shows before it prices a day.
 */
export async function revenueShareOf(db: SqlExecutor, publisherId: string, today = todayUtc()) {
  const schedule = (await revenueShareSchedules(db, [publisherId])).get(publisherId) ?? [];
  const inEffect = schedule.filter((entry) => entry.from <= today).at(-1);
  return {
    publisher_id: publisherId,
    current: { revenue_share: asShare(shareOn(schedule, today)), effective_from: inEffect?.from ?? null },
    scheduled: schedule.filter((entry) => entry.from > today).map((entry) => ({ revenue_share: asShare(entry.ppm), effective_from: entry.from })),
  };
}
