import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { blockParams, dayBlocks } from './dayBlocks.js';
import { addDays } from '../utcDays.js';
import { declaredWrite } from '../store/writtenEventDays.js';

export type ReachLevel = 'campaign' | 'line_item';

/** A key's reach: its campaign, its line item (the nil UUID at level 'campaign') and the figure. */
export interface KeyReach {
  campaignId: string;
  lineItemId: string;
  uniqueUsers: number;
}

/** A key's valid impressions in some of a window's blocks, as one read of them counted. */
export interface KeyCount {
  campaignId: string;
  lineItemId: string;
  impressions: number;
}

/**
 * The campaigns of a reach query, given once: ClickHouse parses a parameter at each place the query
 * names it (0.5-0.7 ms for 1,000 UUIDs), and most of reach's queries filter two or three sources by
 * the same campaigns. Every query of reach starts with this clause; its sources name the set `ids`.
 */
export const WITH_CAMPAIGN_IDS = 'WITH {campaign_ids:Array(UUID)} AS ids';

/** Valid impressions per key of the given campaigns in the window's blocks, as they stand now. */
const BLOCK_COUNTS = `
        SELECT campaign_id, line_item_id, sum(impressions) AS impressions
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
          AND level = {level:String}
          AND campaign_id IN ids
        GROUP BY campaign_id, line_item_id`;

/**
 * Where a window's kept rows are, and how long a report trusts one. reach_windows_v1 keeps windows
 * whose days are all past (clickhouse/0010): a row near its TTL is merged again before a TTL merge
 * can drop it between the check and a later read of its state. reach_today_windows_v1 keeps windows
 * that reach today (clickhouse/0014), asked for a day at most before they are another window.
 */
const KEPT_TABLES = {
  past: { table: 'reach_windows_v1', trustedFor: 'INTERVAL 6 DAY' },
  today: { table: 'reach_today_windows_v1', trustedFor: 'INTERVAL 1 DAY' },
} as const;

type KeptTable = (typeof KEPT_TABLES)[keyof typeof KEPT_TABLES];

/** The window's kept rows that a report may trust. The table is one of KEPT_TABLES, never input. */
function trustedKeptRows(kept: KeptTable): string {
  return `
        FROM ${kept.table}
        WHERE level = {level:String} AND date_from = {date_from:Date} AND date_to = {date_to:Date}
          AND campaign_id IN ids
          AND written_at > now() - ${kept.trustedFor}`;
}

/** A kept row's write: it changes no event nor any figure a report gives (writtenEventDays.ts). */
const KEPT_ROWS_ONLY = null;

const figureRows = z.array(
  z.object({ row_campaign: z.string(), row_line_item: z.string(), fresh: z.coerce.number(), present: z.coerce.number(), unique_users: z.coerce.number() }),
);

/**
 * Reach per key (campaign, or line item) of the given campaigns over dateFrom..dateTo, days that are
 * all past, from reach_windows_v1 (clickhouse/0010, 0011): one kept row per key holds the window's
 * blocks merged into one state, the count of valid impressions it was merged from, and its figure.
 * A key counts as kept when a kept row's count reaches the blocks' count now; a late event raises
 * the blocks' count, so its campaign is merged again (one INSERT ... SELECT, whose count and state
 * come from the same read of the blocks), and its figures are read from the rows just written. The
 * check and the read of the figures are one query, so an up-to-date window finalizes no sketch. A
 * merge racing with a later event only leaves a row that the next report finds short, never one
 * that claims more than its state holds. Keys without valid impressions in the window have no row.
 * `blockCounts`, when given, are the blocks' counts per key of these campaigns as a check of the
 * caller read them a moment ago (keptTodayFigures): the kept rows are compared with those instead
 * of reading the blocks again. Blocks only grow, so a kept row counting at least as many holds
 * every user of that read, as it would of a read of its own.
 */
export async function keptWindowReach(
  ch: ClickHouse,
  level: ReachLevel,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
  blockCounts?: KeyCount[],
): Promise<KeyReach[]> {
  const window = windowParams(level, campaignIds, dateFrom, dateTo);
  const rows = blockCounts ? await keptFiguresAgainst(ch, window, blockCounts) : await keptFigures(ch, KEPT_TABLES.past, window);
  const stale = new Set(rows.filter((row) => !row.fresh).map((row) => row.row_campaign));
  if (stale.size === 0) return rows.map(keyReach);
  await mergeWindowStates(ch, { ...window, campaign_ids: [...stale] });
  const merged = await keptFigures(ch, KEPT_TABLES.past, { ...window, campaign_ids: [...stale] });
  // A key of the blocks with no kept row even now is a write that did not land: no figure to give.
  if (merged.some((row) => !row.present)) throw new Error('reach_windows_v1: a merged window state is missing');
  // A merged row already short again met a later event, which the next report merges; its figure
  // is the union as of this merge, as recent as a state merged live would be.
  return [...rows.filter((row) => !stale.has(row.row_campaign)), ...merged].map(keyReach);
}

type WindowParams = ReturnType<typeof windowParams>;

function windowParams(level: ReachLevel, campaignIds: string[], dateFrom: string, dateTo: string) {
  return { ...blockParams(dayBlocks(dateFrom, dateTo)), level, date_from: dateFrom, date_to: dateTo, campaign_ids: campaignIds };
}

/** Per key of the blocks: whether a trusted kept row counts as many impressions, and the figure of the one counting most (a superset of the key's other rows). */
async function keptFigures(ch: ClickHouse, kept: KeptTable, window: WindowParams) {
  const result = await ch.client.query({
    query: `${WITH_CAMPAIGN_IDS}
      SELECT toString(blocks.campaign_id) AS row_campaign, toString(blocks.line_item_id) AS row_line_item,
             kept.present = 1 AND kept.kept_impressions >= blocks.impressions AS fresh, kept.present AS present, kept.kept_users AS unique_users
      FROM (${BLOCK_COUNTS}
      ) AS blocks
      LEFT JOIN (
        SELECT campaign_id, line_item_id, max(impressions) AS kept_impressions, argMax(unique_users, impressions) AS kept_users, 1 AS present${trustedKeptRows(kept)}
        GROUP BY campaign_id, line_item_id
      ) AS kept ON kept.campaign_id = blocks.campaign_id AND kept.line_item_id = blocks.line_item_id
      SETTINGS max_execution_time = 30`,
    query_params: window,
    format: 'JSONEachRow',
  });
  return figureRows.parse(await result.json());
}

const keptRows = z.array(
  z.object({ row_campaign: z.string(), row_line_item: z.string(), kept_impressions: z.coerce.number(), unique_users: z.coerce.number() }),
);

/** keptFigures against block counts already read: only the trusted kept rows are read here. */
async function keptFiguresAgainst(ch: ClickHouse, window: WindowParams, blockCounts: KeyCount[]): Promise<z.infer<typeof figureRows>> {
  const result = await ch.client.query({
    query: `${WITH_CAMPAIGN_IDS}
      SELECT toString(campaign_id) AS row_campaign, toString(line_item_id) AS row_line_item,
             max(impressions) AS kept_impressions, argMax(unique_users, impressions) AS unique_users${trustedKeptRows(KEPT_TABLES.past)}
      GROUP BY campaign_id, line_item_id
      SETTINGS max_execution_time = 30`,
    query_params: { level: window.level, date_from: window.date_from, date_to: window.date_to, campaign_ids: window.campaign_ids },
    format: 'JSONEachRow',
  });
  const kept = new Map(keptRows.parse(await result.json()).map((row) => [`${row.row_campaign} ${row.row_line_item}`, row]));
  return blockCounts.map(({ campaignId, lineItemId, impressions }) => {
    const row = kept.get(`${campaignId} ${lineItemId}`);
    return {
      row_campaign: campaignId,
      row_line_item: lineItemId,
      fresh: Number(row !== undefined && row.kept_impressions >= impressions),
      present: Number(row !== undefined),
      unique_users: row?.unique_users ?? 0,
    };
  });
}

function keyReach(row: z.infer<typeof figureRows>[number]): KeyReach {
  return { campaignId: row.row_campaign, lineItemId: row.row_line_item, uniqueUsers: row.unique_users };
}

/** Merges the window's blocks of the given campaigns into one kept row per key, with its count and its figure. */
async function mergeWindowStates(ch: ClickHouse, window: WindowParams): Promise<void> {
  await ch.client.command(declaredWrite(ch.writtenEventDays, {
    query: `
      INSERT INTO reach_windows_v1 (level, date_from, date_to, campaign_id, line_item_id, impressions, users_state, unique_users)
      ${WITH_CAMPAIGN_IDS}
      SELECT {level:String}, {date_from:Date}, {date_to:Date}, campaign_id, line_item_id, merged_impressions, merged_state, finalizeAggregation(merged_state)
      FROM (
        SELECT campaign_id, line_item_id, sum(impressions) AS merged_impressions, uniqCombinedMergeState(12)(users_state) AS merged_state
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
          AND level = {level:String}
          AND campaign_id IN ids
        GROUP BY campaign_id, line_item_id
      )
      SETTINGS max_execution_time = 30`,
    query_params: window,
  }, KEPT_ROWS_ONLY));
}

/** A window with days before today that reaches today, at one level, as a report asked for it on `today`. */
export interface TodayWindow {
  level: ReachLevel;
  dateFrom: string;
  dateTo: string;
  today: string;
}

const todayFigureRows = z.array(
  z.object({
    row_campaign: z.string(),
    row_line_item: z.string(),
    fresh: z.coerce.number(),
    present: z.coerce.number(),
    unique_users: z.coerce.number(),
    live: z.coerce.number(),
    past_rows: z.coerce.number(),
    past_impressions: z.coerce.number(),
  }),
);

/**
 * The kept figures of a window reaching today (reach_today_windows_v1, clickhouse/0014) for the
 * keys of the given campaigns, in one query: a key's kept row is trusted when it counts at least the
 * valid impressions of the blocks it was merged from, as they stand now: the blocks of the past
 * days (the kept past state's) and those of today and after. `fresh` holds the figures of the
 * campaigns all of whose keys are kept; `stale` the campaigns with a key short or missing (a new
 * impression since its row, today's or a late one for a past day), whose reach the caller merges;
 * `everyStaleKeyLive` whether each of their keys has blocks of today or after (those start on
 * today or later, the past days' before it), so that the merge need not look for keys without;
 * `stalePastCounts` the past days' count of each of their keys with past blocks, which the check
 * of their kept past states compares with (keptWindowReach) instead of reading the blocks again.
 */
export async function keptTodayFigures(
  ch: ClickHouse,
  window: TodayWindow,
  campaignIds: string[],
): Promise<{ fresh: KeyReach[]; stale: string[]; everyStaleKeyLive: boolean; stalePastCounts: KeyCount[] }> {
  const result = await ch.client.query({
    query: `${WITH_CAMPAIGN_IDS}
      SELECT toString(blocks.campaign_id) AS row_campaign, toString(blocks.line_item_id) AS row_line_item,
             kept.present = 1 AND kept.kept_impressions >= blocks.window_impressions AS fresh, kept.present AS present, kept.kept_users AS unique_users,
             blocks.live_rows > 0 AS live, blocks.past_rows AS past_rows, blocks.past_impressions AS past_impressions
      FROM (
        SELECT campaign_id, line_item_id, sum(impressions) AS window_impressions, countIf(block_start >= {today:Date}) AS live_rows,
               countIf(block_start < {today:Date}) AS past_rows, sumIf(impressions, block_start < {today:Date}) AS past_impressions
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
          AND level = {level:String}
          AND campaign_id IN ids
        GROUP BY campaign_id, line_item_id
      ) AS blocks
      LEFT JOIN (
        SELECT campaign_id, line_item_id, max(impressions) AS kept_impressions, argMax(unique_users, impressions) AS kept_users, 1 AS present${trustedKeptRows(KEPT_TABLES.today)}
        GROUP BY campaign_id, line_item_id
      ) AS kept ON kept.campaign_id = blocks.campaign_id AND kept.line_item_id = blocks.line_item_id
      SETTINGS max_execution_time = 30`,
    query_params: todayWindowParams(window, campaignIds),
    format: 'JSONEachRow',
  });
  const rows = todayFigureRows.parse(await result.json());
  const stale = new Set(rows.filter((row) => !row.fresh).map((row) => row.row_campaign));
  return {
    fresh: rows.filter((row) => !stale.has(row.row_campaign)).map(keyReach),
    stale: [...stale],
    everyStaleKeyLive: rows.every((row) => !stale.has(row.row_campaign) || row.live),
    stalePastCounts: rows
      .filter((row) => stale.has(row.row_campaign) && row.past_rows > 0)
      .map((row) => ({ campaignId: row.row_campaign, lineItemId: row.row_line_item, impressions: row.past_impressions })),
  };
}

/**
 * Writes, per key of the given campaigns, the window's kept row (reach_today_windows_v1): the figure
 * of every kept state of its past days (reach_windows_v1, {date_from}..{past_to}: the newest holds
 * the others' users) merged with the blocks of today and after, and the count it was merged from.
 * The merged state itself is not kept (clickhouse/0017): a row is only ever trusted by its count and
 * answered by its figure, and a stale key is merged again from the past state and the blocks. The
 * count is the newest past state's count plus the live blocks' count, each read with the states it
 * belongs to, so a row never claims more impressions than its figure holds: a past state merged
 * before a late event, or a block written during this read, only leaves a row the next check finds
 * short. Rows of the same key written by several reports or instances differ only in their count;
 * the table keeps the largest (ReplacingMergeTree on it), and the check reads the largest.
 */
export async function keepTodayWindows(ch: ClickHouse, window: TodayWindow, campaignIds: string[]): Promise<void> {
  await ch.client.command(declaredWrite(ch.writtenEventDays, {
    query: `
      INSERT INTO reach_today_windows_v1 (level, date_from, date_to, campaign_id, line_item_id, impressions, unique_users)
      ${WITH_CAMPAIGN_IDS}
      SELECT {level:String}, {date_from:Date}, {date_to:Date}, campaign_id, line_item_id, merged_impressions, merged_users
      FROM (
        SELECT campaign_id, line_item_id, max(past_impressions) + sum(live_impressions) AS merged_impressions,
               uniqCombinedMerge(12)(users_state) AS merged_users
        FROM (
          SELECT campaign_id, line_item_id, impressions AS past_impressions, toUInt64(0) AS live_impressions, users_state
          FROM reach_windows_v1
          WHERE level = {level:String} AND date_from = {date_from:Date} AND date_to = {past_to:Date}
            AND campaign_id IN ids
          UNION ALL
          SELECT campaign_id, line_item_id, toUInt64(0), impressions, users_state
          FROM reach_blocks_v1
          WHERE (span_days, block_start) IN arrayZip({live_spans:Array(UInt8)}, {live_starts:Array(Date)})
            AND level = {level:String}
            AND campaign_id IN ids
        )
        GROUP BY campaign_id, line_item_id
      )
      SETTINGS max_execution_time = 30`,
    query_params: todayWindowParams(window, campaignIds),
  }, KEPT_ROWS_ONLY));
}

/**
 * A window reaching today as parameters: {spans} and {starts} are the blocks a kept row is merged
 * from, those of the past days ({date_from}..{past_to}) and those of today and after ({live_spans},
 * {live_starts}, each starting on {today} or after). Any exact cover of the days counts the same impressions.
 */
function todayWindowParams(window: TodayWindow, campaignIds: string[]) {
  const pastTo = addDays(window.today, -1);
  const live = dayBlocks(window.today, window.dateTo);
  const blocks = blockParams([...dayBlocks(window.dateFrom, pastTo), ...live]);
  const liveBlocks = blockParams(live);
  return {
    ...blocks,
    live_spans: liveBlocks.spans,
    live_starts: liveBlocks.starts,
    level: window.level,
    date_from: window.dateFrom,
    date_to: window.dateTo,
    past_to: pastTo,
    today: window.today,
    campaign_ids: campaignIds,
  };
}
