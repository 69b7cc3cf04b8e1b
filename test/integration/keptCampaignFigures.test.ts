import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { at, createReportCampaign, importEvents, type CampaignFixture, type ImportLine } from '../helpers/reportingFixtures.js';
import { ADDRESSES, BROWSER_UA } from '../helpers/trackingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { declaredWrite } from '../../src/store/writtenEventDays.js';
import { addDays, todayUtc } from '../../src/utcDays.js';

/**
 * The campaign breakdown keeps each campaign's figures of a window (keptCampaignFigures.ts) while no
 * write has changed an event of the window's days. To show that a repeat reads no ClickHouse, the
 * rollup is taken away by a rename declared as changing no event (writtenEventDays.ts): a kept
 * window still answers, one not kept fails as any report does without its table.
 */
const CAMPAIGNS_URL = '/v1/advertiser/reporting/campaigns';
const today = todayUtc();
const past = { date_from: addDays(today, -12), date_to: addDays(today, -6) };

let ctx: TestContext;
let key: string;
let campaign: CampaignFixture;
let placementId: string;

function report(window: { date_from: string; date_to: string }) {
  return ctx.app.inject({ method: 'GET', url: CAMPAIGNS_URL, query: { ...window, breakdown: 'campaign' }, headers: { 'x-api-key': key } });
}

function impression(time: string, ip: string = ADDRESSES.comcastResidential): ImportLine {
  return { type: 'impression', time, line_item_id: campaign.line_item_id, placement_id: placementId, ip, user_agent: BROWSER_UA };
}

/** The campaign's row of a 200 answer. */
async function rowOf(window: { date_from: string; date_to: string }): Promise<{ impressions: number; unique_users: number }> {
  const response = await report(window);
  expect(response.statusCode).toBe(200);
  return response.json().data[0];
}

/** Runs `read` with the campaign rollup renamed away, the rename declared as changing no event's day. */
async function withoutRollup(read: () => Promise<void>): Promise<void> {
  const rename = (from: string, to: string) =>
    ctx.stores.ch.client.command(declaredWrite(ctx.stores.ch.writtenEventDays, { query: `RENAME TABLE ${from} TO ${to}` }, null));
  await rename('campaign_daily_stats_v1', 'campaign_daily_stats_v1_away');
  try {
    await read();
  } finally {
    await rename('campaign_daily_stats_v1_away', 'campaign_daily_stats_v1');
  }
}

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  key = advertiser.key;
  campaign = await createReportCampaign(ctx, advertiser.user.id, { name: 'Kept figures' });
  placementId = (await createPlacement(ctx, (await createPublisher(ctx)).id)).id;
  await importEvents(ctx, [impression(at(addDays(today, -10))), impression(at(addDays(today, -8)))]);
});

afterAll(async () => {
  await ctx.close();
});

describe('the campaign breakdown, repeated', () => {
  it('answers a repeat of a past window from its kept figures, reading no ClickHouse', async () => {
    const first = await report(past);
    expect(first.statusCode).toBe(200);
    await withoutRollup(async () => {
      const repeat = await report(past);
      expect(repeat.statusCode).toBe(200);
      expect(repeat.json().data).toEqual(first.json().data);
      // A window not kept reads the rollup, which is gone.
      expect((await report({ ...past, date_to: addDays(today, -5) })).statusCode).toBe(500);
    });
  });

  it('answers a repeat with the bytes of the first answer, which are the JSON of its rows', async () => {
    const first = await report(past);
    const repeat = await report(past);
    expect(repeat.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(repeat.body).toBe(first.body);
    expect(repeat.body).toBe(JSON.stringify(repeat.json()));
    expect(repeat.json().data[0]).toMatchObject({ campaign_id: campaign.id, campaign_name: 'Kept figures', impressions: 2 });
  });

  it('keeps a past window through writes of today\'s events, which a window with today shows at once', async () => {
    const before = await rowOf(past);
    // Today as the test runs: the file's `today` is yesterday after a midnight during the run, and a window to it all past.
    const withToday = { date_from: past.date_from, date_to: todayUtc() };
    const todayBefore = await rowOf(withToday);
    await importEvents(ctx, [impression(at(withToday.date_to, '00:00:01.000'), ADDRESSES.telekomResidentialV6)]);
    expect(await rowOf(withToday)).toMatchObject({ impressions: todayBefore.impressions + 1, unique_users: todayBefore.unique_users + 1 });
    await withoutRollup(async () => {
      expect(await rowOf(past)).toEqual(before);
    });
  });

  it('shows a late event imported for a day of the window in the next repeat', async () => {
    const before = await rowOf(past);
    expect(await rowOf(past)).toEqual(before);
    await importEvents(ctx, [impression(at(addDays(today, -7)), ADDRESSES.telekomResidentialV6)]);
    expect(await rowOf(past)).toMatchObject({ impressions: before.impressions + 1, unique_users: before.unique_users + 1 });
  });

  it('shows an event written past the pipeline, whose write names no day, in the next repeat', async () => {
    const before = await rowOf(past);
    expect(await rowOf(past)).toEqual(before);
    await insertEvents(ctx, [
      sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, placement_id: placementId, event_time: Date.parse(at(addDays(today, -9))), user_key: 'late-user' }),
    ]);
    expect(await rowOf(past)).toMatchObject({ impressions: before.impressions + 1, unique_users: before.unique_users + 1 });
  });
});
