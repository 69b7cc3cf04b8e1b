import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { blockParams, dayBlocks } from './dayBlocks.js';
import { CAMPAIGN_IDS_PER_QUERY } from './reportCampaigns.js';
import { addDays, todayUtc } from './utcDate.js';
import { keepWindowStates, keptWindowReach, type KeyReach, type ReachLevel } from './reachWindows.js';

/** The block states of the days given as {spans} and {starts}. */
const BLOCK_STATES = `
      SELECT campaign_id, line_item_id, users_state
      FROM reach_blocks_v1
      WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
        AND level = {level:String}
        AND campaign_id IN {campaign_ids:Array(UUID)}`;

const reachRows = z.array(z.object({ row_campaign: z.string(), row_line_item: z.string(), unique_users: z.coerce.number() }));

/**
 * Distinct users with a valid impression over the window, per campaign (`perLineItem` false) or per
 * line item (keyed by line item id). The days before today are one kept state per key
 * (reach_windows_v1, made or renewed by keepWindowStates); today and any later day of the window
 * are merged from their blocks in reach_blocks_v1 as they stand. Both are unions of the same users'
 * hashes, so the figure is the one a merge of every block of the window gives. A window whose days
 * are all past reads the figure kept with its state (keptWindowReach) and merges nothing.
 *
 * Keeping a state is a write. When it fails (too many parts under heavy ingest, a shard or quorum
 * replica down), the report still answers: that chunk merges every block of the window, as before
 * reach_windows_v1 existed; slower, the same figure.
 */
export async function reachOver(
  ch: ClickHouse,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
  perLineItem: boolean,
  today: string = todayUtc(),
): Promise<Map<string, number>> {
  const level: ReachLevel = perLineItem ? 'line_item' : 'campaign';
  const pastTo = dateTo < today ? dateTo : addDays(today, -1);
  const liveFrom = dateFrom > today ? dateFrom : today;
  const sources: string[] = [];
  if (dateFrom <= pastTo) {
    sources.push(`
      SELECT campaign_id, line_item_id, users_state
      FROM reach_windows_v1
      WHERE level = {level:String} AND date_from = {date_from:Date} AND date_to = {past_to:Date}
        AND campaign_id IN {campaign_ids:Array(UUID)}`);
  }
  if (liveFrom <= dateTo) sources.push(BLOCK_STATES);
  const live = blockParams(liveFrom <= dateTo ? dayBlocks(liveFrom, dateTo) : []);
  const reach = new Map<string, number>();
  const setReach = (row: KeyReach) => reach.set(perLineItem ? row.lineItemId : row.campaignId, row.uniqueUsers);
  for (let start = 0; start < campaignIds.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const ids = campaignIds.slice(start, start + CAMPAIGN_IDS_PER_QUERY);
    if (dateTo < today) {
      // Null when keeping the window's state failed.
      const kept = await keptWindowReach(ch, level, ids, dateFrom, dateTo).catch(() => null);
      if (kept) {
        kept.forEach(setReach);
        continue;
      }
    }
    // False only when the window has past days and keeping their state (or figures) failed.
    const asPlanned = dateFrom > pastTo || (dateTo >= today && (await keepWindowStates(ch, level, ids, dateFrom, pastTo).then(() => true, () => false)));
    // The sources are fixed SQL chosen above, never input; every value is a parameter.
    const result = await ch.client.query({
      query: `
        SELECT toString(campaign_id) AS row_campaign, toString(line_item_id) AS row_line_item, uniqCombinedMerge(12)(users_state) AS unique_users
        FROM (${asPlanned ? sources.join('\n        UNION ALL') : BLOCK_STATES})
        GROUP BY campaign_id, line_item_id
        SETTINGS max_execution_time = 30`,
      query_params: {
        ...(asPlanned ? live : blockParams(dayBlocks(dateFrom, dateTo))),
        level,
        date_from: dateFrom,
        past_to: pastTo,
        campaign_ids: ids,
      },
      format: 'JSONEachRow',
    });
    for (const row of reachRows.parse(await result.json())) setReach({ campaignId: row.row_campaign, lineItemId: row.row_line_item, uniqueUsers: row.unique_users });
  }
  return reach;
}
