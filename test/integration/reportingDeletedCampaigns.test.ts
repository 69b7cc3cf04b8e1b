import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { contractSchema } from '../helpers/contract.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { at, createReportCampaign, importEvents, type CampaignFixture, type ImportLine } from '../helpers/reportingFixtures.js';
import { ADDRESSES, BROWSER_UA } from '../helpers/trackingFixtures.js';

/**
 * Deleting a campaign removes it from management and serving, but not from what the advertiser was
 * billed: its events stay in every report over a window in which it has some (migrations/0017).
 */
const CAMPAIGNS_URL = '/v1/advertiser/reporting/campaigns';
const EVENTS_URL = '/v1/advertiser/reporting/events';

function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** The report window: three days ending a week ago; `early` is a day before it. */
const from = daysFromToday(-10);
const to = daysFromToday(-8);
const early = daysFromToday(-20);
const windowQuery = { date_from: from, date_to: to };

let ctx: TestContext;
let key: string;
let otherKey: string;
let kept: CampaignFixture;
let deleted: CampaignFixture;
let deletedEarly: CampaignFixture;
let deletedEmpty: CampaignFixture;
let deletedInvalidOnly: CampaignFixture;
let foreignDeleted: CampaignFixture;
let before: Record<string, ReturnType<typeof JSON.parse>>;

function get(url: string, query: Record<string, string> = {}, headers: Record<string, string> = {}, apiKey = key) {
  return ctx.app.inject({ method: 'GET', url, query, headers: { 'x-api-key': apiKey, ...headers } });
}

async function deleteCampaign(campaignId: string, apiKey: string) {
  const response = await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${campaignId}`, headers: { 'x-api-key': apiKey } });
  expect(response.statusCode).toBeLessThan(300);
}

/** Every report the deletion could change, as JSON bodies. */
async function reports() {
  const bodies: Record<string, ReturnType<typeof JSON.parse>> = {};
  for (const breakdown of ['campaign', 'daily', 'line_item', 'creative', 'placement', 'country', 'hourly']) {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown, limit: '1000' });
    expect(response.statusCode).toBe(200);
    bodies[breakdown] = response.json();
  }
  const quality = await get('/v1/advertiser/reporting/traffic-quality', windowQuery);
  expect(quality.statusCode).toBe(200);
  bodies.traffic_quality = quality.json();
  return bodies;
}

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['campaigns', 'reporting']);
  key = advertiser.key;
  kept = await createReportCampaign(ctx, advertiser.user.id, { name: 'Kept' });
  deleted = await createReportCampaign(ctx, advertiser.user.id, { name: 'Deleted with events' }, 'CPC', 0.5);
  deletedEarly = await createReportCampaign(ctx, advertiser.user.id, { name: 'Deleted, events before the window' });
  deletedEmpty = await createReportCampaign(ctx, advertiser.user.id, { name: 'Deleted, never delivered' });
  deletedInvalidOnly = await createReportCampaign(ctx, advertiser.user.id, { name: 'Deleted, invalid traffic only' });
  const other = await createAdvertiser(ctx, ['campaigns', 'reporting']);
  otherKey = other.key;
  foreignDeleted = await createReportCampaign(ctx, other.user.id, { name: 'Other organization' });
  const publisher = await createPublisher(ctx);
  const placement = (await createPlacement(ctx, publisher.id)).id;
  const line = (campaign: CampaignFixture, type: ImportLine['type'], time: string): ImportLine => ({
    type,
    time,
    line_item_id: campaign.line_item_id,
    placement_id: placement,
    ip: ADDRESSES.comcastResidential,
    user_agent: BROWSER_UA,
  });
  await importEvents(ctx, [
    line(kept, 'impression', at(from)),
    line(kept, 'impression', at(to)),
    line(deleted, 'impression', at(from)),
    line(deleted, 'click', at(from, '12:00:05.000')),
    line(deleted, 'click', at(to)),
    line(deletedEarly, 'impression', at(early)),
    { ...line(deletedInvalidOnly, 'impression', at(from)), ip: ADDRESSES.awsV4 },
    line(foreignDeleted, 'impression', at(from)),
  ]);
  // What the advertiser saw before any delete: every report must read the same afterwards.
  before = await reports();
  for (const campaign of [deleted, deletedEarly, deletedEmpty, deletedInvalidOnly]) await deleteCampaign(campaign.id, key);
  await deleteCampaign(foreignDeleted.id, otherKey);
});

afterAll(async () => {
  await ctx.close();
});

describe('reports after a campaign is deleted', () => {
  it('keeps the daily totals and every breakdown but the campaign rows as they were', async () => {
    const after = await reports();
    for (const breakdown of ['daily', 'line_item', 'creative', 'placement', 'country', 'hourly', 'traffic_quality']) {
      expect(after[breakdown], breakdown).toEqual(before[breakdown]);
    }
    const daily = after.daily.data as Array<{ clicks: number; spend_usd: number }>;
    expect(daily.reduce((sum, day) => sum + day.clicks, 0)).toBe(2);
    // The deleted campaign's two clicks at $0.50 and the kept one's two impressions at $2.50 CPM.
    expect(daily.reduce((sum, day) => sum + day.spend_usd, 0)).toBeCloseTo(1.005, 9);
  });

  it('shows a deleted campaign with events in the window as completed, with its figures and when it was deleted', async () => {
    const response = await get(CAMPAIGNS_URL, windowQuery);
    const body = response.json();
    const validate = contractSchema('#/components/schemas/AdvertiserReportingResponse');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    const ids = body.data.map((row: { campaign_id: string }) => row.campaign_id);
    // Creation order; of the deleted ones, the one without any event in the window is not listed.
    expect(ids).toEqual([kept.id, deleted.id, deletedInvalidOnly.id]);
    expect(body.data[2]).toMatchObject({ campaign_status: 'completed', impressions: 0, spend_usd: 0 });
    const beforeRow = before.campaign.data.find((row: { campaign_id: string }) => row.campaign_id === deleted.id);
    const row = body.data[1];
    expect(row).toEqual({ ...beforeRow, campaign_status: 'completed', campaign_deleted_at: expect.any(String) });
    expect(Math.abs(Date.parse(row.campaign_deleted_at) - Date.now())).toBeLessThan(120_000);
    expect(body.data[0].campaign_deleted_at).toBeNull();
    expect(row.clicks).toBe(2);
  });

  it('shows a deleted campaign over a window with its events, and never one without events', async () => {
    const response = await get(CAMPAIGNS_URL, { date_from: early, date_to: to });
    const names = response.json().data.map((row: { campaign_name: string }) => row.campaign_name);
    expect(names).toEqual(['Kept', 'Deleted with events', 'Deleted, events before the window', 'Deleted, invalid traffic only']);
  });

  it('names a deleted campaign\'s line items in the line_item breakdown', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'line_item' });
    const row = response.json().data.find((item: { line_item_id: string }) => item.line_item_id === deleted.line_item_id);
    expect(row).toMatchObject({ campaign_id: deleted.id, campaign_name: 'Deleted with events', line_item_title: 'line item', clicks: 2 });
  });

  it('pages over live and deleted campaigns alike with the cursor', async () => {
    const first = (await get(CAMPAIGNS_URL, { date_from: early, date_to: to, limit: '1' })).json();
    const second = (await get(CAMPAIGNS_URL, { date_from: early, date_to: to, limit: '1', cursor: first.pagination.next_cursor })).json();
    const third = (await get(CAMPAIGNS_URL, { date_from: early, date_to: to, limit: '1', cursor: second.pagination.next_cursor })).json();
    expect([first, second, third].map((page) => page.data[0].campaign_id)).toEqual([kept.id, deleted.id, deletedEarly.id]);
  });

  it('exports a deleted campaign\'s events to its organization, and to no other', async () => {
    const own = await get(EVENTS_URL, { campaign_id: deleted.id, ...windowQuery, format: 'ndjson' });
    expect(own.statusCode).toBe(200);
    const types = own.body.trim().split('\n').map((text) => JSON.parse(text).type);
    expect(types.sort()).toEqual(['click', 'click', 'impression']);
    const foreign = await get(EVENTS_URL, { campaign_id: deleted.id, ...windowQuery, format: 'ndjson' }, {}, otherKey);
    expect(foreign.statusCode).toBe(404);
  });

  it('shows another organization\'s deleted campaign to none but that organization', async () => {
    const ours = (await get(CAMPAIGNS_URL, windowQuery)).json().data.map((row: { campaign_id: string }) => row.campaign_id);
    expect(ours).not.toContain(foreignDeleted.id);
    const theirs = (await get(CAMPAIGNS_URL, windowQuery, {}, otherKey)).json().data;
    expect(theirs.map((row: { campaign_id: string; campaign_status: string }) => [row.campaign_id, row.campaign_status])).toEqual([
      [foreignDeleted.id, 'completed'],
    ]);
  });

  it('still answers 404 for the deleted campaign in the Management API', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/campaigns/${deleted.id}`, headers: { 'x-api-key': key } });
    expect(response.statusCode).toBe(404);
  });
});
