import { z } from 'zod';
import type { ClickHouse } from '../store/clickhouse.js';
import { blockParams, dayBlocks } from './dayBlocks.js';
import { CAMPAIGN_IDS_PER_QUERY } from './reportCampaigns.js';

const reachRows = z.array(z.object({ row_campaign: z.string(), row_line_item: z.string(), unique_users: z.coerce.number() }));

/**
 * Distinct users with a valid impression over the window, per campaign (`perLineItem` false) or per
 * line item (keyed by line item id), merging the window's block states. The sort key starts with
 * the block, so the read covers those blocks' rows of the given campaigns only.
 */
export async function reachOver(
  ch: ClickHouse,
  campaignIds: string[],
  dateFrom: string,
  dateTo: string,
  perLineItem: boolean,
): Promise<Map<string, number>> {
  const blocks = blockParams(dayBlocks(dateFrom, dateTo));
  const reach = new Map<string, number>();
  for (let start = 0; start < campaignIds.length; start += CAMPAIGN_IDS_PER_QUERY) {
    const result = await ch.client.query({
      query: `
        SELECT toString(campaign_id) AS row_campaign, toString(line_item_id) AS row_line_item, uniqCombinedMerge(12)(users_state) AS unique_users
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)})
          AND level = {level:String}
          AND campaign_id IN {campaign_ids:Array(UUID)}
        GROUP BY campaign_id, line_item_id
        SETTINGS max_execution_time = 30`,
      query_params: {
        ...blocks,
        campaign_ids: campaignIds.slice(start, start + CAMPAIGN_IDS_PER_QUERY),
        level: perLineItem ? 'line_item' : 'campaign',
      },
      format: 'JSONEachRow',
    });
    for (const row of reachRows.parse(await result.json())) reach.set(perLineItem ? row.row_line_item : row.row_campaign, row.unique_users);
  }
  return reach;
}
