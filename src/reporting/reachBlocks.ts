import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { blockParams, dayBlocks } from './dayBlocks.js';
import { CAMPAIGN_IDS_PER_QUERY } from './reportCampaigns.js';
import { addDays, todayUtc } from '../utcDays.js';
import { keptTodayFigures, keptWindowReach, WITH_CAMPAIGN_IDS, type KeyCount, type KeyReach, type ReachLevel, type TodayWindow } from './reachWindows.js';
import type { KeptReachWrites } from './keptReachWrites.js';

/** What reach reads and writes: ClickHouse, and the queue of kept rows written after a report answers. */
export interface ReachStores {
  ch: ClickHouse;
  reachWrites: KeptReachWrites;
}

/** The block states of the days given as {spans} and {starts}; no kept count (see KEPT_STATES). */
const BLOCK_STATES = `
      SELECT campaign_id, line_item_id, users_state, toUInt64(0) AS kept_impressions, 0 AS kept_row
      FROM reach_blocks_v1
      WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
        AND level = {level:String}
        AND campaign_id IN ids`;

/**
 * The kept states of the past days ({date_from}..{past_to}), with the count each was merged from.
 * No written_at trust filter (reachWindows.ts's trustedKeptRows): the count and the state come from
 * the same read, so a TTL merge cannot drop one between them; a row past its TTL is simply missing,
 * and its key goes the merge path (pastStatesCover, keptWindowReach).
 */
const KEPT_STATES = `
      SELECT campaign_id, line_item_id, users_state, impressions AS kept_impressions, 1 AS kept_row
      FROM reach_windows_v1
      WHERE level = {level:String} AND date_from = {date_from:Date} AND date_to = {past_to:Date}
        AND campaign_id IN ids`;

/**
 * The kept states of the past days of the keys that also have blocks in the live days ({spans},
 * {starts}). A key without users since has its kept figure already: finalizing its large state again
 * would cost 35-50 us for the same number. When every key has users since, KEPT_STATES reads the
 * same rows without this subquery's read of the live blocks (3-7 ms for 1,000 campaigns at 100M events).
 */
const KEPT_STATES_OF_LIVE_KEYS = `${KEPT_STATES}
        AND (campaign_id, line_item_id) IN (
          SELECT campaign_id, line_item_id
          FROM reach_blocks_v1
          WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
            AND level = {level:String}
            AND campaign_id IN ids)`;

const reachRows = z.array(
  z.object({ row_campaign: z.string(), row_line_item: z.string(), unique_users: z.coerce.number(), kept_impressions: z.coerce.number(), kept: z.coerce.number() }),
);
type ReachRows = z.infer<typeof reachRows>;

/**
 * Distinct users with a valid impression over the window, per campaign (`perLineItem` false) or per
 * line item (keyed by line item id). The days before today are one kept state per key, with its
 * figure (reach_windows_v1, made or renewed by keptWindowReach); today and any later day of the
 * window are merged from their blocks in reach_blocks_v1 as they stand, with the kept state of each
 * key that has users there. Both are unions of the same users' hashes, so the figure is the one a
 * merge of every block of the window gives; a key without users since the past days keeps its kept
 * figure, and a window whose days are all past merges nothing.
 *
 * A window with past days that reaches today is also kept whole, as of the last report that merged
 * it (reach_today_windows_v1, clickhouse/0014): one query checks every key's kept count against
 * the blocks now and reads the figures of the campaigns with nothing new since (keptTodayFigures).
 * Only the other campaigns go the way above, and their union is written for the next report after
 * this one has answered (KeptReachWrites), so a campaign with new impressions before every report
 * costs what it cost before plus the check, and one without costs the check. That check also
 * counts the past days' blocks, which the kept past states are then checked against without a
 * second read of the blocks (8-9 ms of about 18 for 1,000 campaigns at 100M events), and when every
 * key has users since, on the rows the union reads, with no query of its own.
 *
 * Keeping a state is a write. When keeping the past days' fails (too many parts under heavy ingest,
 * a shard or quorum replica down), the report still answers: that chunk merges every block of the
 * window, as before reach_windows_v1 existed; slower, the same figure. A failed write of a window
 * reaching today only leaves the next report to merge it again.
 */
export async function reachOver(
  { ch, reachWrites }: ReachStores,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
  perLineItem: boolean,
  today: string = todayUtc(),
): Promise<Map<string, number>> {
  const level: ReachLevel = perLineItem ? 'line_item' : 'campaign';
  const pastTo = dateTo < today ? dateTo : addDays(today, -1);
  const liveFrom = dateFrom > today ? dateFrom : today;
  const reach = new Map<string, number>();
  const setReach = (row: KeyReach) => reach.set(perLineItem ? row.lineItemId : row.campaignId, row.uniqueUsers);
  const setRow = (row: ReachRows[number]) => setReach({ campaignId: row.row_campaign, lineItemId: row.row_line_item, uniqueUsers: row.unique_users });
  const todayWindow: TodayWindow | null = dateFrom <= pastTo && liveFrom <= dateTo ? { level, dateFrom, dateTo, today } : null;
  const toKeep: string[] = [];
  for (let start = 0; start < campaignIds.length; start += CAMPAIGN_IDS_PER_QUERY) {
    let ids = campaignIds.slice(start, start + CAMPAIGN_IDS_PER_QUERY);
    let everyKeyLive = false;
    let pastCounts: KeyCount[] | undefined;
    if (todayWindow) {
      const keptToday = await keptTodayFigures(ch, todayWindow, ids);
      keptToday.fresh.forEach(setReach);
      if (keptToday.stale.length === 0) continue;
      ids = keptToday.stale;
      everyKeyLive = keptToday.everyStaleKeyLive;
      pastCounts = keptToday.stalePastCounts;
    }
    // Every key of the stale campaigns has users since the past days: their kept past states are read
    // with their counts in the union itself and checked against the past counts the check above read,
    // with no check of their own first. A state short or missing (a late event, not kept yet) sends
    // the campaigns the way below, which merges it again.
    if (pastCounts && everyKeyLive) {
      const union = await mergedReach(ch, `${KEPT_STATES}\n        UNION ALL${BLOCK_STATES}`, {
        ...blockParams(dayBlocks(liveFrom, dateTo)),
        level,
        date_from: dateFrom,
        past_to: pastTo,
        campaign_ids: ids,
      });
      if (pastStatesCover(union, pastCounts)) {
        union.forEach(setRow);
        toKeep.push(...ids);
        continue;
      }
    }
    // Null when the window has no past days, or keeping their state failed.
    const kept = dateFrom <= pastTo ? await keptWindowReach(ch, level, ids, dateFrom, pastTo, pastCounts).catch(() => null) : null;
    kept?.forEach(setReach);
    if (kept && liveFrom > dateTo) continue;
    // Without kept past states the union would be written without them: counting too few, useless.
    if (todayWindow && kept) toKeep.push(...ids);
    const union = await mergedReach(ch, kept ? `${everyKeyLive ? KEPT_STATES : KEPT_STATES_OF_LIVE_KEYS}\n        UNION ALL${BLOCK_STATES}` : BLOCK_STATES, {
      // With kept states, the live days' blocks; without, every block of the window.
      ...blockParams(kept ? dayBlocks(liveFrom, dateTo) : dayBlocks(dateFrom, dateTo)),
      level,
      date_from: dateFrom,
      past_to: pastTo,
      campaign_ids: ids,
    });
    union.forEach(setRow);
  }
  // Queued after reach's reads: on chdb a write queued before them would run first.
  if (todayWindow) reachWrites.keep(todayWindow, toKeep);
  return reach;
}

/**
 * Each key's union of the given sources (BLOCK_STATES, with or without KEPT_STATES or
 * KEPT_STATES_OF_LIVE_KEYS), with the largest count of its kept rows and whether it has any. The
 * sources are fixed SQL chosen by reachOver, never input; every value is a parameter.
 */
async function mergedReach(ch: ClickHouse, sources: string, params: Record<string, unknown>): Promise<ReachRows> {
  const result = await ch.client.query({
    query: `${WITH_CAMPAIGN_IDS}
        SELECT toString(campaign_id) AS row_campaign, toString(line_item_id) AS row_line_item, uniqCombinedMerge(12)(users_state) AS unique_users,
               max(kept_impressions) AS kept_impressions, max(kept_row) AS kept
        FROM (${sources})
        GROUP BY campaign_id, line_item_id
        SETTINGS max_execution_time = 30`,
    query_params: params,
    format: 'JSONEachRow',
  });
  return reachRows.parse(await result.json());
}

/**
 * Whether the union read a kept past state for every key with past blocks, counting at least the
 * past blocks' count as the check read it: blocks only grow, so such a state holds every user of
 * that read (the newest of a key's rows holds the others' users, and counts the most).
 */
function pastStatesCover(union: ReachRows, pastCounts: KeyCount[]): boolean {
  const byKey = new Map(union.map((row) => [`${row.row_campaign} ${row.row_line_item}`, row]));
  return pastCounts.every(({ campaignId, lineItemId, impressions }) => {
    const row = byKey.get(`${campaignId} ${lineItemId}`);
    return row !== undefined && row.kept === 1 && row.kept_impressions >= impressions;
  });
}
