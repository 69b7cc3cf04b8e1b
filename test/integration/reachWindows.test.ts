import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';
import { createReportCampaign } from '../helpers/reportingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { keptWindowReach, type ReachLevel } from '../../src/reporting/reachWindows.js';
import { blockParams, dayBlocks } from '../../src/reporting/dayBlocks.js';
import { addDays, todayUtc } from '../../src/reporting/utcDate.js';

// A window whose days are all past: its reach is read from the figures kept next to its states
// (clickhouse/0011), and must be what a merge of every block of the window gives.
const dateFrom = addDays(todayUtc(), -10);
const dateTo = addDays(todayUtc(), -8);
const NIL = '00000000-0000-0000-0000-000000000000';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp();
});

afterAll(async () => {
  await ctx.close();
});

async function campaignWithTwoLineItems() {
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  const campaign = await createReportCampaign(ctx, advertiser.user.id);
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO line_items (campaign_id, title, status, budget_daily, budget_currency, bid_type, bid_value)
     VALUES ($1, 'second line item', 'active', 1000, 'USD', 'tCPM', 2.5) RETURNING id`,
    [campaign.id],
  );
  const seen = (lineItem: string, user: string, day: string) =>
    sampleEvent({ campaign_id: campaign.id, line_item_id: lineItem, user_key: user, event_time: Date.parse(`${day}T12:00:00Z`) });
  return { campaign, second: rows[0]!.id, seen };
}

/** The figure of every block of the window merged in one group per key: what reach was before states were kept. */
async function mergedFromBlocks(level: ReachLevel, campaignId: string): Promise<Record<string, number>> {
  const result = await ctx.stores.ch.client.query({
    query: `
      SELECT toString(line_item_id) AS line_item, uniqCombinedMerge(12)(users_state) AS users
      FROM reach_blocks_v1
      WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)}) AND level = {level:String} AND campaign_id = {campaign:UUID}
      GROUP BY line_item_id`,
    query_params: { ...blockParams(dayBlocks(dateFrom, dateTo)), level, campaign: campaignId },
    format: 'JSONEachRow',
  });
  const rows = (await result.json()) as Array<{ line_item: string; users: number | string }>;
  return Object.fromEntries(rows.map((row) => [row.line_item, Number(row.users)]));
}

async function reachOf(level: ReachLevel, campaignId: string): Promise<Record<string, number>> {
  const rows = await keptWindowReach(ctx.stores.ch, level, [campaignId], dateFrom, dateTo);
  expect(rows.every((row) => row.campaignId === campaignId)).toBe(true);
  return Object.fromEntries(rows.map((row) => [row.lineItemId, row.uniqueUsers]));
}

async function keptRows(campaignId: string): Promise<number> {
  const result = await ctx.stores.ch.client.query({
    query: 'SELECT count() AS rows FROM reach_windows_v1 WHERE campaign_id = {campaign:UUID} AND date_from = {from:Date} AND date_to = {to:Date}',
    query_params: { campaign: campaignId, from: dateFrom, to: dateTo },
    format: 'JSONEachRow',
  });
  return Number(((await result.json()) as Array<{ rows: number | string }>)[0]!.rows);
}

describe('reach of a past window from the kept figures (keptWindowReach)', () => {
  it('gives what a merge of every block gives, for large (HyperLogLog) and small sets, on its first call and later ones', async () => {
    const { campaign, second, seen } = await campaignWithTwoLineItems();
    // 3000 users on the first line item on each of three days, 50 of them and 50 others on the second.
    await insertEvents(ctx, [0, 1, 2].flatMap((day) => Array.from({ length: 3000 }, (_, user) => seen(campaign.line_item_id, `user-${user}`, addDays(dateFrom, day)))));
    await insertEvents(ctx, Array.from({ length: 100 }, (_, user) => seen(second, `user-${user + 2950}`, addDays(dateFrom, user % 3))));
    const campaignFigure = await mergedFromBlocks('campaign', campaign.id);
    const lineItemFigures = await mergedFromBlocks('line_item', campaign.id);
    expect(Math.abs(campaignFigure[NIL]! - 3050)).toBeLessThanOrEqual(147); // three standard errors of 1.6 % (docs/reporting.md)
    expect(lineItemFigures[second]).toBe(100); // exact for small sets
    for (let call = 0; call < 2; call += 1) {
      expect(await reachOf('campaign', campaign.id)).toEqual(campaignFigure);
      expect(await reachOf('line_item', campaign.id)).toEqual(lineItemFigures);
    }
    // Merged once per level, then read.
    expect(await keptRows(campaign.id)).toBe(3);
  });

  it('counts events that arrive late for the window on the next call', async () => {
    const { campaign, second, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', dateFrom), seen(second, 'u2', dateTo)]);
    expect(await reachOf('campaign', campaign.id)).toEqual({ [NIL]: 2 });
    expect(await reachOf('line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 1, [second]: 1 });
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u3', addDays(dateFrom, 1)), seen(second, 'u1', dateFrom), seen(second, 'u4', dateTo)]);
    expect(await reachOf('campaign', campaign.id)).toEqual({ [NIL]: 4 });
    expect(await reachOf('line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 2, [second]: 3 });
    // Outside the window: no change.
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u5', addDays(dateTo, 1))]);
    expect(await reachOf('campaign', campaign.id)).toEqual({ [NIL]: 4 });
  });

  it('reads a state kept before its figure was (clickhouse/0011) as that state\'s figure, without merging it again', async () => {
    const { campaign, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, ['u1', 'u2', 'u3'].map((user, day) => seen(campaign.line_item_id, user, addDays(dateFrom, day))));
    // A kept row as clickhouse/0010's code wrote it: count and state, no figure.
    await ctx.stores.ch.client.command({
      query: `
        INSERT INTO reach_windows_v1 (level, date_from, date_to, campaign_id, line_item_id, impressions, users_state)
        SELECT 'campaign', {from:Date}, {to:Date}, campaign_id, line_item_id, sum(impressions), uniqCombinedMergeState(12)(users_state)
        FROM reach_blocks_v1
        WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)}) AND level = 'campaign' AND campaign_id = {campaign:UUID}
        GROUP BY campaign_id, line_item_id`,
      query_params: { ...blockParams(dayBlocks(dateFrom, dateTo)), from: dateFrom, to: dateTo, campaign: campaign.id },
    });
    expect(await reachOf('campaign', campaign.id)).toEqual({ [NIL]: 3 });
    expect(await keptRows(campaign.id)).toBe(1);
  });

  it('gives no row for a campaign without valid impressions in the window', async () => {
    const { campaign, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', addDays(dateTo, 1)), { ...seen(campaign.line_item_id, 'u2', dateFrom), ivt: 'datacenter' }]);
    expect(await reachOf('campaign', campaign.id)).toEqual({});
  });
});

describe('reach_blocks_v1 parts (clickhouse/0011)', () => {
  it('merges a month to one part once none of its parts was written for an hour, and no month still being written', async () => {
    const result = await ctx.stores.ch.client.query({
      query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'reach_blocks_v1'",
      format: 'JSONEachRow',
    });
    const [table] = (await result.json()) as Array<{ engine_full: string }>;
    expect(table!.engine_full).toContain('min_age_to_force_merge_seconds = 3600');
    expect(table!.engine_full).toContain('min_age_to_force_merge_on_partition_only = 1');
  });
});
