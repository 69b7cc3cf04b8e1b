import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { blockParams, dayBlocks } from './dayBlocks.js';

export type ReachLevel = 'campaign' | 'line_item';

const staleRows = z.array(z.object({ row_campaign: z.string() }));

/**
 * Makes sure reach_windows_v1 (clickhouse/0010) holds, for every key (campaign, or line item) of the
 * given campaigns with valid impressions in dateFrom..dateTo, a state merged from the window's
 * blocks that is no older than what the blocks hold now. A key counts as kept when a kept row's
 * count reaches the blocks' count; a late event raises the blocks' count, so its campaign is merged
 * again (one INSERT ... SELECT, whose count and state come from the same read of the blocks). A
 * merge racing with a later event only leaves a row that the next report finds short, never one that
 * claims more than its state holds.
 */
export async function keepWindowStates(ch: ClickHouse, level: ReachLevel, campaignIds: string[], dateFrom: string, dateTo: string): Promise<void> {
  const window = { ...blockParams(dayBlocks(dateFrom, dateTo)), level, date_from: dateFrom, date_to: dateTo, campaign_ids: campaignIds };
  const result = await ch.client.query({
    query: `
      SELECT toString(blocks.campaign_id) AS row_campaign
      FROM (
        SELECT campaign_id, line_item_id, sum(impressions) AS impressions
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
          AND level = {level:String}
          AND campaign_id IN {campaign_ids:Array(UUID)}
        GROUP BY campaign_id, line_item_id
      ) AS blocks
      LEFT JOIN (
        SELECT campaign_id, line_item_id, max(impressions) AS impressions, 1 AS present
        FROM reach_windows_v1
        WHERE level = {level:String} AND date_from = {date_from:Date} AND date_to = {date_to:Date}
          AND campaign_id IN {campaign_ids:Array(UUID)}
          -- A row near its TTL is merged again before a TTL merge can drop it between this check and the read.
          AND written_at > now() - INTERVAL 6 DAY
        GROUP BY campaign_id, line_item_id
      ) AS kept ON kept.campaign_id = blocks.campaign_id AND kept.line_item_id = blocks.line_item_id
      GROUP BY blocks.campaign_id
      HAVING min(kept.present = 1 AND kept.impressions >= blocks.impressions) = 0
      SETTINGS max_execution_time = 30`,
    query_params: window,
    format: 'JSONEachRow',
  });
  const stale = staleRows.parse(await result.json()).map((row) => row.row_campaign);
  if (stale.length === 0) return;
  await ch.client.command({
    query: `
      INSERT INTO reach_windows_v1 (level, date_from, date_to, campaign_id, line_item_id, impressions, users_state)
      SELECT {level:String}, {date_from:Date}, {date_to:Date}, campaign_id, line_item_id, sum(impressions), uniqCombinedMergeState(12)(users_state)
      FROM reach_blocks_v1
      WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
        AND level = {level:String}
        AND campaign_id IN {campaign_ids:Array(UUID)}
      GROUP BY campaign_id, line_item_id
      SETTINGS max_execution_time = 30`,
    query_params: { ...window, campaign_ids: stale },
  });
}
