import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';
import { createReportCampaign } from '../helpers/reportingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { metricSample } from '../helpers/metricSample.js';
import { keptWindowReach, type ReachLevel } from '../../src/reporting/reachWindows.js';
import { KeptReachWrites } from '../../src/reporting/keptReachWrites.js';
import { reachOver } from '../../src/reporting/reachBlocks.js';
import { blockParams, dayBlocks } from '../../src/reporting/dayBlocks.js';
import { addDays, todayUtc } from '../../src/utcDays.js';

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
async function mergedFromBlocks(level: ReachLevel, campaignId: string, from = dateFrom, to = dateTo): Promise<Record<string, number>> {
  const result = await ctx.stores.ch.client.query({
    query: `
      SELECT toString(line_item_id) AS line_item, uniqCombinedMerge(12)(users_state) AS users
      FROM reach_blocks_v1
      WHERE (span_days, block_start) IN arrayZip({spans:Array(UInt8)}, {starts:Array(Date)}) AND level = {level:String} AND campaign_id = {campaign:UUID}
      GROUP BY line_item_id`,
    query_params: { ...blockParams(dayBlocks(from, to)), level, campaign: campaignId },
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

// A window with past days that reaches today: kept whole as of the last report that merged it
// (clickhouse/0014), written after the report answered.
const today = todayUtc();
const todayFrom = addDays(today, -3);

/** A queue of kept reach writes, as an app instance has one, that counts its failed writes; no quiet time after a campaign's write unless given. */
function instanceWrites(quietMs = 0) {
  const writes = { failed: 0, queue: undefined as unknown as KeptReachWrites };
  writes.queue = new KeptReachWrites(ctx.stores.ch, ctx.app.log, { inc: () => (writes.failed += 1) }, quietMs);
  return writes;
}

/** reachOver's figures for one campaign over todayFrom..today, keyed by line item (level 'line_item') or NIL (level 'campaign'). */
async function todayReachOf(reachWrites: KeptReachWrites, level: ReachLevel, campaignId: string): Promise<Record<string, number>> {
  const reach = await reachOver({ ch: ctx.stores.ch, reachWrites }, [campaignId], todayFrom, today, level === 'line_item', today);
  return Object.fromEntries([...reach].map(([key, users]) => [level === 'line_item' ? key : NIL, users]));
}

/** Keys of the campaign at the level with a kept row in reach_today_windows_v1 (FINAL: one row per key, as the engine's merges leave it). */
async function keptTodayKeys(campaignId: string, level: ReachLevel): Promise<number> {
  const result = await ctx.stores.ch.client.query({
    query: 'SELECT count() AS rows FROM reach_today_windows_v1 FINAL WHERE campaign_id = {campaign:UUID} AND level = {level:String} AND date_from = {from:Date} AND date_to = {to:Date}',
    query_params: { campaign: campaignId, level, from: todayFrom, to: today },
    format: 'JSONEachRow',
  });
  return Number(((await result.json()) as Array<{ rows: number | string }>)[0]!.rows);
}

/**
 * The newest block number of reach_today_windows_v1's parts: it grows with every insert into the
 * table (by one or more) and stays as it is through the engine's merges, so an unchanged number
 * means nothing was written.
 */
async function todayWritesMark(): Promise<number> {
  const result = await ctx.stores.ch.client.query({
    query: "SELECT max(max_block_number) AS mark FROM system.parts WHERE database = currentDatabase() AND table = 'reach_today_windows_v1' AND active",
    format: 'JSONEachRow',
  });
  return Number(((await result.json()) as Array<{ mark: number | string }>)[0]!.mark);
}

/** Sets the figure of the line item's kept rows of the past days (reach_windows_v1) to `users`. */
async function markPastFigure(lineItemId: string, users: number): Promise<void> {
  await ctx.stores.ch.client.command({
    query: `ALTER TABLE reach_windows_v1 UPDATE unique_users = {users:UInt64}
            WHERE line_item_id = {line_item:UUID} AND level = 'line_item' SETTINGS mutations_sync = 2`,
    query_params: { users, line_item: lineItemId },
  });
}

/** Sets the kept figures of the campaign's rows to `users`: a figure no merge gives shows that a report read the kept row. */
async function markKeptFigures(campaignId: string, users: number, fewerImpressionsThan = Number.MAX_SAFE_INTEGER): Promise<void> {
  await ctx.stores.ch.client.command({
    query: `ALTER TABLE reach_today_windows_v1 UPDATE unique_users = {users:UInt64}
            WHERE campaign_id = {campaign:UUID} AND impressions < {fewer:UInt64} SETTINGS mutations_sync = 2`,
    query_params: { users, campaign: campaignId, fewer: fewerImpressionsThan },
  });
}

describe('reach of a window reaching today, kept as of the last report (keptTodayFigures, KeptReachWrites)', () => {
  it('answers what a merge of every block gives, keeps it after answering, and reads the kept figure until the campaign has a new impression', async () => {
    const writes = instanceWrites();
    const { campaign, second, seen } = await campaignWithTwoLineItems();
    // 2000 users on the first line item on each of two past days and 2000 today, half of them new today; 60 on the second, 20 of them today.
    await insertEvents(ctx, [-2, -1].flatMap((day) => Array.from({ length: 2000 }, (_, user) => seen(campaign.line_item_id, `user-${user}`, addDays(today, day)))));
    await insertEvents(ctx, Array.from({ length: 2000 }, (_, user) => seen(campaign.line_item_id, `user-${user + 1000}`, today)));
    await insertEvents(ctx, Array.from({ length: 60 }, (_, user) => seen(second, `user-${user + 5000}`, user < 20 ? today : todayFrom)));
    const campaignFigure = await mergedFromBlocks('campaign', campaign.id, todayFrom, today);
    const lineItemFigures = await mergedFromBlocks('line_item', campaign.id, todayFrom, today);
    expect(Math.abs(campaignFigure[NIL]! - 3060)).toBeLessThanOrEqual(147); // three standard errors of 1.6 % (docs/reporting.md)
    expect(lineItemFigures[second]).toBe(60); // exact for small sets

    // Nothing kept yet: merged as before, answered, then written.
    expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual(campaignFigure);
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual(lineItemFigures);
    await writes.queue.settled();
    expect([await keptTodayKeys(campaign.id, 'campaign'), await keptTodayKeys(campaign.id, 'line_item')]).toEqual([1, 2]);
    // Kept: the next reports answer what the rows hold, and write nothing.
    const kept = await todayWritesMark();
    for (let call = 0; call < 2; call += 1) {
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual(campaignFigure);
      expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual(lineItemFigures);
    }
    await markKeptFigures(campaign.id, 7);
    expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 7 });
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 7, [second]: 7 });
    await writes.queue.settled();
    expect(await todayWritesMark()).toBe(kept);

    // A new user today on the second line item: the campaign's kept rows are short, so it is merged
    // again (not the marked figure) and written after the answer; the next report reads what was written.
    await insertEvents(ctx, [seen(second, 'user-new', today)]);
    const campaignAfter = await mergedFromBlocks('campaign', campaign.id, todayFrom, today);
    const lineItemsAfter = await mergedFromBlocks('line_item', campaign.id, todayFrom, today);
    expect(lineItemsAfter[second]).toBe(61);
    expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual(campaignAfter);
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual(lineItemsAfter);
    await writes.queue.settled();
    const rewritten = await todayWritesMark();
    expect(rewritten).toBeGreaterThan(kept);
    expect([await keptTodayKeys(campaign.id, 'campaign'), await keptTodayKeys(campaign.id, 'line_item')]).toEqual([1, 2]);
    await markKeptFigures(campaign.id, 8);
    expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 8 });
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 8, [second]: 8 });
    await writes.queue.settled();
    expect(await todayWritesMark()).toBe(rewritten);
    expect(writes.failed).toBe(0);
  });

  it('merges again only a campaign with an impression since its row, today or late for a past day', async () => {
    const writes = instanceWrites();
    const first = await campaignWithTwoLineItems();
    const other = await campaignWithTwoLineItems();
    await insertEvents(ctx, [first.seen(first.campaign.line_item_id, 'u1', addDays(today, -1)), first.seen(first.second, 'u2', today)]);
    await insertEvents(ctx, [other.seen(other.campaign.line_item_id, 'u1', today)]);
    const both = async (level: ReachLevel) => {
      const reach = await reachOver({ ch: ctx.stores.ch, reachWrites: writes.queue }, [first.campaign.id, other.campaign.id], todayFrom, today, level === 'line_item', today);
      await writes.queue.settled();
      return Object.fromEntries(reach);
    };
    expect(await both('campaign')).toEqual({ [first.campaign.id]: 2, [other.campaign.id]: 1 });
    expect(await both('line_item')).toEqual({ [first.campaign.line_item_id]: 1, [first.second]: 1, [other.campaign.line_item_id]: 1 });
    // The other campaign's kept figures marked: they stay what the reports answer for it, never merged again.
    await markKeptFigures(other.campaign.id, 5);
    // Today: a new user and one seen on a past day.
    await insertEvents(ctx, [first.seen(first.campaign.line_item_id, 'u3', today), first.seen(first.campaign.line_item_id, 'u1', today)]);
    expect(await both('campaign')).toEqual({ [first.campaign.id]: 3, [other.campaign.id]: 5 });
    expect(await both('line_item')).toEqual({ [first.campaign.line_item_id]: 2, [first.second]: 1, [other.campaign.line_item_id]: 5 });
    // Late for a past day of the window: a user not seen yet (the past days' kept state is merged again first).
    await insertEvents(ctx, [first.seen(first.second, 'u4', todayFrom)]);
    expect(await both('campaign')).toEqual({ [first.campaign.id]: 4, [other.campaign.id]: 5 });
    expect(await both('line_item')).toEqual({ [first.campaign.line_item_id]: 2, [first.second]: 2, [other.campaign.line_item_id]: 5 });
    // Outside the window (tomorrow): nothing to merge, nothing written.
    const kept = await todayWritesMark();
    await insertEvents(ctx, [first.seen(first.campaign.line_item_id, 'u5', addDays(today, 1))]);
    expect(await both('campaign')).toEqual({ [first.campaign.id]: 4, [other.campaign.id]: 5 });
    expect(await todayWritesMark()).toBe(kept);
    expect(writes.failed).toBe(0);
  });

  it('answers right when the write after it fails: the failure is counted, nothing is kept, and the next report merges and writes it', async () => {
    const writes = instanceWrites();
    const { campaign, second, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', addDays(today, -2)), seen(second, 'u2', addDays(today, -1)), seen(second, 'u1', today), seen(second, 'u3', today)]);
    // A real refusal by the engine: every insert into the table breaks the constraint.
    await ctx.stores.ch.client.command({ query: "ALTER TABLE reach_today_windows_v1 ADD CONSTRAINT refuse_every_row CHECK level = 'none'" });
    try {
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
      expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 1, [second]: 3 });
      await writes.queue.settled();
    } finally {
      await ctx.stores.ch.client.command({ query: 'ALTER TABLE reach_today_windows_v1 DROP CONSTRAINT refuse_every_row' });
    }
    expect(writes.failed).toBe(2);
    expect([await keptTodayKeys(campaign.id, 'campaign'), await keptTodayKeys(campaign.id, 'line_item')]).toEqual([0, 0]);
    expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 1, [second]: 3 });
    await writes.queue.settled();
    expect([await keptTodayKeys(campaign.id, 'campaign'), await keptTodayKeys(campaign.id, 'line_item')]).toEqual([1, 2]);
    expect(writes.failed).toBe(2);
  });

  it('over HTTP: the campaign report answers 200 with the right reach while the write fails, and /metrics counts the failure', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const campaign = await createReportCampaign(ctx, advertiser.user.id);
    const seen = (user: string, day: string) =>
      sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, user_key: user, event_time: Date.parse(`${day}T12:00:00Z`) });
    await insertEvents(ctx, [seen('u1', todayFrom), seen('u2', today), seen('u1', today)]);
    const failures = () => metricSample(ctx, 'adsvc_reach_write_failures_total');
    const before = await failures();
    const report = () =>
      ctx.app.inject({
        method: 'GET',
        url: '/v1/advertiser/reporting/campaigns',
        query: { date_from: todayFrom, date_to: today, campaign_ids: campaign.id },
        headers: { 'x-api-key': advertiser.key },
      });
    await ctx.stores.ch.client.command({ query: "ALTER TABLE reach_today_windows_v1 ADD CONSTRAINT refuse_every_row CHECK level = 'none'" });
    try {
      const response = await report();
      expect(response.statusCode).toBe(200);
      expect(response.json().data.map((row: { unique_users: number }) => row.unique_users)).toEqual([2]);
      await vi.waitFor(async () => expect(await failures()).toBe(before + 1), { timeout: 10_000 });
    } finally {
      await ctx.stores.ch.client.command({ query: 'ALTER TABLE reach_today_windows_v1 DROP CONSTRAINT refuse_every_row' });
    }
    // Within the app's quiet minute after queueing the campaign, the next report merges it again and queues nothing.
    const response = await report();
    expect(response.json().data.map((row: { unique_users: number }) => row.unique_users)).toEqual([2]);
    expect(await failures()).toBe(before + 1);
  });

  it('does not write a campaign again within the quiet time after queueing it: its reports merge it meanwhile, and write it after', async () => {
    const writes = instanceWrites(1000);
    const { campaign, seen } = await campaignWithTwoLineItems();
    // The queue's clock is the test's (Date only; timers run): on the real one a busy machine took
    // longer than the quiet second between the two reports below, and the second wrote again.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const queuedAt = Date.now();
      await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', addDays(today, -1)), seen(campaign.line_item_id, 'u2', today)]);
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 2 });
      await writes.queue.settled();
      const written = await todayWritesMark();
      await insertEvents(ctx, [seen(campaign.line_item_id, 'u3', today)]);
      vi.setSystemTime(queuedAt + 999);
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
      await writes.queue.settled();
      expect(await todayWritesMark()).toBe(written);
      vi.setSystemTime(queuedAt + 1000);
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
      await writes.queue.settled();
      expect(await todayWritesMark()).toBeGreaterThan(written);
      await markKeptFigures(campaign.id, 6);
      expect(await todayReachOf(writes.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 6 });
      expect(writes.failed).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives a key without users today its past days\' kept figure, not a merge of its kept state, when its campaign has new users; and merges it again after a late event for a past day', async () => {
    const writes = instanceWrites();
    const { campaign, second, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [
      seen(campaign.line_item_id, 'p1', addDays(today, -1)),
      seen(campaign.line_item_id, 't1', today),
      seen(second, 'p2', addDays(today, -2)),
      seen(second, 'p3', addDays(today, -2)),
    ]);
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 2, [second]: 2 });
    await writes.queue.settled();
    // A new user today on the first line item: the campaign is merged again, and the second line
    // item, without users today, answers its past days' kept figure (marked: no merge gives 9).
    await markPastFigure(second, 9);
    await insertEvents(ctx, [seen(campaign.line_item_id, 't2', today)]);
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 3, [second]: 9 });
    await writes.queue.settled();
    // A late user for a past day of the second line item: its past days' row is short, so it is merged again.
    await insertEvents(ctx, [seen(second, 'p4', addDays(today, -2)), seen(campaign.line_item_id, 't3', today)]);
    expect(await todayReachOf(writes.queue, 'line_item', campaign.id)).toEqual({ [campaign.line_item_id]: 4, [second]: 3 });
    await writes.queue.settled();
    expect(writes.failed).toBe(0);
  });

  it('keeps one figure per key when reports of several instances write the same key: the row counting the most impressions', async () => {
    const [one, two] = [instanceWrites(), instanceWrites()];
    const { campaign, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', addDays(today, -1)), seen(campaign.line_item_id, 'u2', today)]);
    // Two reports at once, one on each instance: both merge, answer the same and write rows of the same count.
    const before = await todayWritesMark();
    expect(await Promise.all([todayReachOf(one.queue, 'campaign', campaign.id), todayReachOf(two.queue, 'campaign', campaign.id)])).toEqual([{ [NIL]: 2 }, { [NIL]: 2 }]);
    await Promise.all([one.queue.settled(), two.queue.settled()]);
    expect(await todayWritesMark()).toBeGreaterThan(before);
    // A new user, and the first instance writes a row with a larger count (3 impressions).
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u3', today)]);
    expect(await todayReachOf(one.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
    await one.queue.settled();
    // Whatever rows of 2 impressions the engine has not merged away yet, marked with a figure no merge gives: never read.
    await markKeptFigures(campaign.id, 1000, 3);
    expect(await todayReachOf(two.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
    // The engine's merge keeps only the row counting the most, which the next report reads without writing.
    await ctx.stores.ch.client.command({ query: 'OPTIMIZE TABLE reach_today_windows_v1 FINAL' });
    const merged = await ctx.stores.ch.client.query({
      query: 'SELECT impressions, unique_users FROM reach_today_windows_v1 WHERE campaign_id = {campaign:UUID} AND level = {level:String}',
      query_params: { campaign: campaign.id, level: 'campaign' },
      format: 'JSONEachRow',
    });
    const rows = (await merged.json()) as Array<{ impressions: number | string; unique_users: number | string }>;
    expect(rows.map((row) => [Number(row.impressions), Number(row.unique_users)])).toEqual([[3, 3]]);
    const kept = await todayWritesMark();
    expect(await todayReachOf(two.queue, 'campaign', campaign.id)).toEqual({ [NIL]: 3 });
    await Promise.all([one.queue.settled(), two.queue.settled()]);
    expect(await todayWritesMark()).toBe(kept);
    expect([one.failed, two.failed]).toEqual([0, 0]);
  });

  it('keeps a key\'s count and figure but not its merged state, which nothing reads (clickhouse/0017): the table\'s merges copy no sketches', async () => {
    const result = await ctx.stores.ch.client.query({
      query: "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'reach_today_windows_v1' ORDER BY position",
      format: 'JSONEachRow',
    });
    const columns = ((await result.json()) as Array<{ name: string }>).map((column) => column.name);
    expect(columns).toEqual(['level', 'date_from', 'date_to', 'campaign_id', 'line_item_id', 'impressions', 'unique_users', 'written_at']);
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
