import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { createReportCampaign, type CampaignFixture, ZERO_METRICS } from '../helpers/reportingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const URL = '/v1/advertiser/reporting/campaigns';
const TCPM_NANOS = 2_500_000; // $2.50 per thousand impressions
const CPC_NANOS = 400_000_000; // $0.40 per click

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
const d0 = addDays(new Date().toISOString().slice(0, 10), -20);
const d = (offset: number) => addDays(d0, offset);
const windowQuery = { date_from: d0, date_to: d(2) };
const time = (day: string, clock: string) => Date.parse(`${day}T${clock}Z`);

let ctx: TestContext;
let key: string;
let otherKey: string;
let cA: CampaignFixture;
let cB: CampaignFixture;
let foreign: CampaignFixture;
let l2: string;
let k1: string;
let k2: string;
let kB: string;
let p1: string;
let p2: string;

function get(query: Record<string, string>, headers: Record<string, string> = {}, apiKey = key) {
  return ctx.app.inject({ method: 'GET', url: URL, query, headers: { 'x-api-key': apiKey, ...headers } });
}

async function addLineItem(campaignId: string): Promise<string> {
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO line_items (campaign_id, title, status, budget_daily, budget_currency, bid_type, bid_value)
     VALUES ($1, 'second line item', 'active', 1000, 'USD', 'tCPM', 2.5) RETURNING id`,
    [campaignId],
  );
  return rows[0]!.id;
}

async function addCreative(lineItemId: string, title: string): Promise<string> {
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO creatives (line_item_id, format, title, body, cta, destination_url)
     VALUES ($1, 'native', $2, 'body', 'Go', 'https://example.com') RETURNING id`,
    [lineItemId, title],
  );
  return rows[0]!.id;
}

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  key = advertiser.key;
  cA = await createReportCampaign(ctx, advertiser.user.id, { name: 'Alpha' });
  cB = await createReportCampaign(ctx, advertiser.user.id, { name: 'Beta' }, 'CPC', 0.4);
  const other = await createAdvertiser(ctx, ['reporting']);
  otherKey = other.key;
  foreign = await createReportCampaign(ctx, other.user.id, { name: 'Foreign' });
  l2 = await addLineItem(cA.id);
  k1 = await addCreative(cA.line_item_id, 'Creative one');
  k2 = await addCreative(l2, 'Creative two');
  kB = await addCreative(cB.line_item_id, 'Creative beta');
  const publisher = await createPublisher(ctx);
  // Ids that sort p1 before p2, as the placement breakdown orders by id.
  p1 = (await createPlacement(ctx, publisher.id, `brk-a-${Date.now()}`)).id;
  p2 = (await createPlacement(ctx, publisher.id, `brk-b-${Date.now()}`)).id;

  const inA1 = { campaign_id: cA.id, line_item_id: cA.line_item_id, creative_id: k1 };
  const inA2 = { campaign_id: cA.id, line_item_id: l2, creative_id: k2 };
  const inB = { campaign_id: cB.id, line_item_id: cB.line_item_id, creative_id: kB, price_model: 'CPC' };
  const event = (fields: Partial<TrackedEvent>) => sampleEvent({ cost_nanos: 0, ...fields });
  const impression = { type: 'impression' as const, cost_nanos: TCPM_NANOS };
  const keyless = { user_key: '', ip: '81.2.69.142', user_agent: 'Mozilla/5.0 (X11)' };
  await insertEvents(ctx, [
    event({ ...inA1, ...impression, placement_id: p1, country: 'US', user_key: 'u1', event_time: time(d0, '10:15:00.000') }),
    event({ ...inA1, ...impression, placement_id: p1, country: 'US', user_key: 'u1', event_time: time(d0, '10:45:00.000') }),
    event({ ...inA1, type: 'click', placement_id: p1, country: 'US', user_key: 'u1', event_time: time(d0, '10:50:00.000') }),
    event({ ...inA1, ...impression, placement_id: p1, country: 'US', user_key: 'u9', ivt: 'datacenter', cost_nanos: 0, event_time: time(d0, '10:20:00.000') }),
    event({ ...inB, type: 'impression', placement_id: p1, country: 'FR', user_key: 'u3', event_time: time(d(1), '03:05:00.000') }),
    event({ ...inB, type: 'click', cost_nanos: CPC_NANOS, placement_id: p1, country: 'FR', user_key: 'u3', event_time: time(d(1), '03:10:00.000') }),
    event({ campaign_id: foreign.id, line_item_id: foreign.line_item_id, ...impression, placement_id: p1, country: 'US', user_key: 'u5', event_time: time(d0, '11:00:00.000') }),
  ]);
  // A second insert: the rollup holds several unmerged rows per key, which only the merge makes whole.
  await insertEvents(ctx, [
    event({ ...inA1, ...impression, placement_id: p2, country: 'DE', user_key: 'u2', event_time: time(d(1), '03:00:00.000') }),
    event({ ...inA2, ...impression, placement_id: p2, ...keyless, event_time: time(d(1), '03:30:00.000') }),
    event({ ...inA2, ...impression, placement_id: p2, ...keyless, event_time: time(d(2), '23:59:59.999') }),
    event({ ...inA2, type: 'conversion', revenue_nanos: 10_000_000_000, placement_id: p2, ...keyless, event_time: time(d(2), '12:00:00.000') }),
    event({ ...inA1, ...impression, placement_id: p1, country: 'US', user_key: 'u4', event_time: time(d(3), '00:00:00.000') }),
  ]);
});

afterAll(async () => {
  await ctx.close();
});

const byId = <Row extends Record<string, unknown>>(rows: Row[], field: keyof Row) =>
  [...rows].sort((a, b) => String(a[field]).localeCompare(String(b[field])));

describe('GET /v1/advertiser/reporting/campaigns, breakdown=line_item', () => {
  it('sums each line item over the window with its campaign, every rate and its reach', async () => {
    const response = await get({ ...windowQuery, breakdown: 'line_item' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    const rowA1 = {
      campaign_id: cA.id,
      campaign_name: 'Alpha',
      line_item_id: cA.line_item_id,
      line_item_title: 'line item',
      ...ZERO_METRICS,
      impressions: 3,
      clicks: 1,
      spend_usd: 0.0075,
      ctr: 33.333333, // 1 / 3 x 100
      cpc_usd: 0.0075,
      ecpm_usd: 2.5,
      unique_users: 2, // u1 twice, u2
    };
    const rowA2 = {
      campaign_id: cA.id,
      campaign_name: 'Alpha',
      line_item_id: l2,
      line_item_title: 'second line item',
      ...ZERO_METRICS,
      impressions: 2,
      conversions: 1,
      spend_usd: 0.005,
      revenue_usd: 10,
      cpa_usd: 0.005,
      ecpm_usd: 2.5,
      roas: 2000, // 10 / 0.005
      unique_users: 1, // one address and user agent on two days: one user, not two
    };
    const rowB = {
      campaign_id: cB.id,
      campaign_name: 'Beta',
      line_item_id: cB.line_item_id,
      line_item_title: 'line item',
      ...ZERO_METRICS,
      impressions: 1,
      clicks: 1,
      spend_usd: 0.4,
      ctr: 100,
      cpc_usd: 0.4,
      ecpm_usd: 400,
      unique_users: 1,
    };
    expect(body.data).toEqual([...byId([rowA1, rowA2], 'line_item_id'), rowB]);
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 3, has_more: false });
    expect(body.query).toEqual({ breakdown: 'line_item', ...windowQuery, campaign_ids: null });
  });

  it('filters by campaign_ids and pages', async () => {
    const filtered = await get({ ...windowQuery, breakdown: 'line_item', campaign_ids: cB.id });
    expect(filtered.json().data.map((row: { line_item_id: string }) => row.line_item_id)).toEqual([cB.line_item_id]);
    const second = await get({ ...windowQuery, breakdown: 'line_item', limit: '2', offset: '2' });
    expect(second.json().data.map((row: { line_item_id: string }) => row.line_item_id)).toEqual([cB.line_item_id]);
    expect(second.json().pagination).toEqual({ limit: 2, offset: 2, total: 1, has_more: false });
  });
});

describe('GET /v1/advertiser/reporting/campaigns, breakdown=creative', () => {
  it('sums each creative with its campaign', async () => {
    const body = (await get({ ...windowQuery, breakdown: 'creative' })).json();
    const a = [
      { campaign_id: cA.id, campaign_name: 'Alpha', creative_id: k1, creative_title: 'Creative one', ...ZERO_METRICS, impressions: 3, clicks: 1, spend_usd: 0.0075, ctr: 33.333333, cpc_usd: 0.0075, ecpm_usd: 2.5 },
      { campaign_id: cA.id, campaign_name: 'Alpha', creative_id: k2, creative_title: 'Creative two', ...ZERO_METRICS, impressions: 2, conversions: 1, spend_usd: 0.005, revenue_usd: 10, cpa_usd: 0.005, ecpm_usd: 2.5, roas: 2000 },
    ];
    expect(body.data).toEqual([
      ...byId(a, 'creative_id'),
      { campaign_id: cB.id, campaign_name: 'Beta', creative_id: kB, creative_title: 'Creative beta', ...ZERO_METRICS, impressions: 1, clicks: 1, spend_usd: 0.4, ctr: 100, cpc_usd: 0.4, ecpm_usd: 400 },
    ]);
  });
});

describe('GET /v1/advertiser/reporting/campaigns, breakdown=placement', () => {
  it('sums each placement over the organization campaigns only', async () => {
    const body = (await get({ ...windowQuery, breakdown: 'placement' })).json();
    expect(body.data).toEqual([
      {
        placement_id: p1,
        placement_name: `placement ${p1}`,
        ...ZERO_METRICS,
        impressions: 3,
        clicks: 2,
        spend_usd: 0.405, // two impressions at 0.0025 and a click at 0.40
        ctr: 66.666667,
        cpc_usd: 0.2025,
        ecpm_usd: 135, // 0.405 / 3 x 1000
      },
      {
        placement_id: p2,
        placement_name: `placement ${p2}`,
        ...ZERO_METRICS,
        impressions: 3,
        conversions: 1,
        spend_usd: 0.0075,
        revenue_usd: 10,
        cpa_usd: 0.0075,
        ecpm_usd: 2.5,
        roas: 1333.333333,
      },
    ]);
  });
});

describe('GET /v1/advertiser/reporting/campaigns, breakdown=country', () => {
  it('sums each country, events without one as unknown, last', async () => {
    const body = (await get({ ...windowQuery, breakdown: 'country' })).json();
    expect(body.data).toEqual([
      { country: 'DE', ...ZERO_METRICS, impressions: 1, spend_usd: 0.0025, ecpm_usd: 2.5 },
      { country: 'FR', ...ZERO_METRICS, impressions: 1, clicks: 1, spend_usd: 0.4, ctr: 100, cpc_usd: 0.4, ecpm_usd: 400 },
      { country: 'US', ...ZERO_METRICS, impressions: 2, clicks: 1, spend_usd: 0.005, ctr: 50, cpc_usd: 0.005, ecpm_usd: 2.5 },
      { country: 'unknown', ...ZERO_METRICS, impressions: 2, conversions: 1, spend_usd: 0.005, revenue_usd: 10, cpa_usd: 0.005, ecpm_usd: 2.5, roas: 2000 },
    ]);
  });
});

describe('GET /v1/advertiser/reporting/campaigns, breakdown=hourly', () => {
  const hour = (day: string, h: number) => `${day}T${String(h).padStart(2, '0')}:00:00Z`;

  it('answers every UTC hour of the window, ascending, with the hour sums', async () => {
    const body = (await get({ ...windowQuery, breakdown: 'hourly', limit: '1000' })).json();
    expect(body.data).toHaveLength(72);
    expect(body.data[0]).toEqual({ hour: hour(d0, 0), ...ZERO_METRICS });
    const busy = body.data.filter((row: { impressions: number; clicks: number; conversions: number }) => row.impressions + row.clicks + row.conversions > 0);
    expect(busy).toEqual([
      { hour: hour(d0, 10), ...ZERO_METRICS, impressions: 2, clicks: 1, spend_usd: 0.005, ctr: 50, cpc_usd: 0.005, ecpm_usd: 2.5 },
      { hour: hour(d(1), 3), ...ZERO_METRICS, impressions: 3, clicks: 1, spend_usd: 0.405, ctr: 33.333333, cpc_usd: 0.405, ecpm_usd: 135 },
      { hour: hour(d(2), 12), ...ZERO_METRICS, conversions: 1, revenue_usd: 10 },
      { hour: hour(d(2), 23), ...ZERO_METRICS, impressions: 1, spend_usd: 0.0025, ecpm_usd: 2.5 },
    ]);
  });

  it('pages over the hours', async () => {
    const body = (await get({ ...windowQuery, breakdown: 'hourly', limit: '24', offset: '24' })).json();
    expect(body.data.map((row: { hour: string }) => row.hour)).toEqual(Array.from({ length: 24 }, (_, h) => hour(d(1), h)));
    expect(body.data[3]).toMatchObject({ impressions: 3, clicks: 1 });
    expect(body.pagination).toEqual({ limit: 24, offset: 24, total: 24, has_more: true });
  });
});

describe('reach', () => {
  it('counts each user once over the window on the campaign breakdown', async () => {
    const body = (await get({ ...windowQuery, campaign_ids: `${cA.id},${cB.id}` })).json();
    expect(body.data).toEqual([
      expect.objectContaining({ campaign_id: cA.id, impressions: 5, spend_usd: 0.0125, ctr: 20, roas: 800, unique_users: 3 }),
      expect.objectContaining({ campaign_id: cB.id, impressions: 1, unique_users: 1 }),
    ]);
  });

  it('is a distinct count over days, not a sum of daily reach, within the stated error', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const campaign = await createReportCampaign(ctx, advertiser.user.id);
    // The same 3000 users on each of 3 days: 9000 impressions, 3000 users.
    const events = [0, 1, 2].flatMap((day) =>
      Array.from({ length: 3000 }, (_, user) =>
        sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, user_key: `user-${user}`, event_time: time(d(day), '08:00:00.000') }),
      ),
    );
    await insertEvents(ctx, events);
    const [row] = (await get(windowQuery, {}, advertiser.key)).json().data;
    expect(row.impressions).toBe(9000);
    expect(Math.abs(row.unique_users - 3000)).toBeLessThanOrEqual(144); // three standard errors of 1.6 % (docs/reporting.md)
  });

  it('counts the users seen inside the window only, per line item and over the campaign', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const campaign = await createReportCampaign(ctx, advertiser.user.id);
    const second = await addLineItem(campaign.id);
    const seen = (lineItem: string, user: string, day: string) =>
      sampleEvent({ campaign_id: campaign.id, line_item_id: lineItem, user_key: user, event_time: time(day, '12:00:00.000') });
    // A window starting on a day divisible by 64 (days since 1970), where the longest blocks begin:
    // none may reach the day after the window.
    const aligned = addDays('1970-01-01', Math.floor(Date.parse(`${d0}T00:00:00Z`) / 86_400_000 / 64) * 64);
    const at = (offset: number) => addDays(aligned, offset);
    await insertEvents(ctx, [
      seen(campaign.line_item_id, 'before', at(-1)),
      seen(campaign.line_item_id, 'u1', at(0)),
      seen(campaign.line_item_id, 'u2', at(0)),
      seen(second, 'u2', at(2)),
      seen(second, 'u3', at(2)),
      seen(second, 'after', at(3)),
    ]);
    const window = { date_from: at(0), date_to: at(2) };
    const [campaignRow] = (await get(window, {}, advertiser.key)).json().data;
    expect(campaignRow).toMatchObject({ impressions: 4, unique_users: 3 });
    const lineItems = (await get({ ...window, breakdown: 'line_item' }, {}, advertiser.key)).json().data;
    expect(lineItems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line_item_id: campaign.line_item_id, impressions: 2, unique_users: 2 }),
        expect.objectContaining({ line_item_id: second, impressions: 2, unique_users: 2 }),
      ]),
    );
    expect(lineItems).toHaveLength(2);
  });
});

describe('reach kept for past days (reach_windows_v1)', () => {
  async function campaignWithTwoLineItems() {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const campaign = await createReportCampaign(ctx, advertiser.user.id);
    const second = await addLineItem(campaign.id);
    const seen = (lineItem: string, user: string, day: string) =>
      sampleEvent({ campaign_id: campaign.id, line_item_id: lineItem, user_key: user, event_time: time(day, '12:00:00.000') });
    return { key: advertiser.key, campaign, second, seen };
  }
  const reachOf = async (apiKey: string, window: Record<string, string>) => {
    const [campaignRow] = (await get(window, {}, apiKey)).json().data;
    const lineItems = (await get({ ...window, breakdown: 'line_item' }, {}, apiKey)).json().data as Array<{ line_item_id: string; unique_users: number }>;
    return { campaign: campaignRow.unique_users, lineItems: Object.fromEntries(lineItems.map((row) => [row.line_item_id, row.unique_users])) };
  };

  it('counts late events of a past day that arrive after the window was last reported', async () => {
    const { key: apiKey, campaign, second, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', d(0)), seen(second, 'u2', d(1))]);
    const window = { date_from: d0, date_to: d(2) };
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 2, lineItems: { [campaign.line_item_id]: 1, [second]: 1 } });
    // Late: days already reported, new users on both line items and one user seen before.
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u3', d(1)), seen(second, 'u4', d(0)), seen(second, 'u1', d(2))]);
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 4, lineItems: { [campaign.line_item_id]: 2, [second]: 3 } });
    // The same window again, nothing new: the kept state, the same figures.
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 4, lineItems: { [campaign.line_item_id]: 2, [second]: 3 } });
  });

  it('adds today to the kept past days as one union, today changing between reports', async () => {
    const { key: apiKey, campaign, second, seen } = await campaignWithTwoLineItems();
    const today = new Date().toISOString().slice(0, 10);
    const window = { date_from: addDays(today, -3), date_to: today };
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', addDays(today, -2)), seen(second, 'u2', addDays(today, -1)), seen(second, 'u1', today)]);
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 2, lineItems: { [campaign.line_item_id]: 1, [second]: 2 } });
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u2', today), seen(campaign.line_item_id, 'u5', today)]);
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 3, lineItems: { [campaign.line_item_id]: 3, [second]: 2 } });
    // A window of today alone reads no kept state.
    expect(await reachOf(apiKey, { date_from: today, date_to: today })).toEqual({ campaign: 3, lineItems: { [campaign.line_item_id]: 2, [second]: 1 } });
  });

  it('still answers, with the same figures, when the past days\' state cannot be kept (its table unavailable)', async () => {
    const { key: apiKey, campaign, second, seen } = await campaignWithTwoLineItems();
    await insertEvents(ctx, [seen(campaign.line_item_id, 'u1', d(0)), seen(second, 'u2', d(1)), seen(second, 'u1', d(2))]);
    const window = { date_from: d0, date_to: d(2) };
    await ctx.stores.ch.client.command({ query: 'RENAME TABLE reach_windows_v1 TO reach_windows_v1_aside' });
    try {
      expect(await reachOf(apiKey, window)).toEqual({ campaign: 2, lineItems: { [campaign.line_item_id]: 1, [second]: 2 } });
    } finally {
      await ctx.stores.ch.client.command({ query: 'RENAME TABLE reach_windows_v1_aside TO reach_windows_v1' });
    }
    expect(await reachOf(apiKey, window)).toEqual({ campaign: 2, lineItems: { [campaign.line_item_id]: 1, [second]: 2 } });
  });
});

describe('breakdowns and tenancy', () => {
  for (const breakdown of ['line_item', 'creative', 'placement', 'country', 'hourly']) {
    it(`${breakdown} shows another organization nothing of these campaigns`, async () => {
      const asked = await get({ ...windowQuery, breakdown, campaign_ids: `${cA.id},${cB.id}` }, {}, otherKey);
      expect(asked.statusCode).toBe(200);
      const rows = asked.json().data as Array<{ impressions: number; clicks: number }>;
      expect(rows.every((row) => row.impressions === 0 && row.clicks === 0)).toBe(true);
    });
  }

  it('sums only the own campaign for the other organization', async () => {
    const placement = (await get({ ...windowQuery, breakdown: 'placement' }, {}, otherKey)).json().data;
    expect(placement).toEqual([expect.objectContaining({ placement_id: p1, impressions: 1, clicks: 0, spend_usd: 0.0025 })]);
  });
});

describe('breakdowns as CSV and their parameters', () => {
  it('streams line items as CSV with a header of the row fields', async () => {
    const response = await get({ ...windowQuery, breakdown: 'line_item', campaign_ids: cB.id, format: 'csv' });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="line_item-report_${d0}_${d(2)}.csv"`);
    expect(response.body).toBe(
      [
        'campaign_id,campaign_name,line_item_id,line_item_title,impressions,clicks,conversions,spend_usd,revenue_usd,ctr,cpc_usd,cpa_usd,cvr,ecpm_usd,roas,unique_users',
        `${cB.id},Beta,${cB.line_item_id},line item,1,1,0,0.4,0,100,0.4,0,0,400,0,1`,
        '',
      ].join('\r\n'),
    );
  });

  it('answers 400 for a window over 92 days or a bad limit on every breakdown', async () => {
    for (const breakdown of ['line_item', 'creative', 'placement', 'country', 'hourly']) {
      expect((await get({ breakdown, date_from: '2026-01-01', date_to: '2026-04-04' })).statusCode).toBe(400);
      expect((await get({ breakdown, limit: '0' })).json().error.code).toBe('bad_request');
    }
  });
});

describe('breakdown responses match openapi.yaml', () => {
  const contract = parse(readFileSync(path.join(packageRoot, 'openapi.yaml'), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(contract, 'openapi.yaml');
  const validate = ajv.getSchema('openapi.yaml#/components/schemas/AdvertiserReportingResponse')!;

  for (const breakdown of ['campaign', 'line_item', 'creative', 'placement', 'country', 'hourly']) {
    it(`for breakdown=${breakdown}`, async () => {
      const body = (await get({ ...windowQuery, breakdown })).json();
      expect(body.data.length).toBeGreaterThan(0);
      expect(validate(body) ? [] : validate.errors, JSON.stringify(body).slice(0, 500)).toEqual([]);
    });
  }

  it('rejects a line item row without its reach, so the check above can fail', () => {
    const row = ajv.getSchema('openapi.yaml#/components/schemas/AdvertiserLineItemRow')!;
    expect(row({ campaign_id: cA.id, campaign_name: 'x', line_item_id: cA.line_item_id, line_item_title: 'x', ...ZERO_METRICS })).toBe(false);
  });
});

describe('breakdown_blocks_v1 parts (clickhouse/0015)', () => {
  // What the settings do (ClickHouse merges a whole month to one part once none of its parts was
  // written for an hour) is the engine's; this test holds the table to them.
  it('is set to merge a whole partition (month) once none of its parts is younger than 3600 s: min_age_to_force_merge_seconds = 3600, on partition only', async () => {
    const result = await ctx.stores.ch.client.query({
      query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'breakdown_blocks_v1'",
      format: 'JSONEachRow',
    });
    const [table] = (await result.json()) as Array<{ engine_full: string }>;
    expect(table!.engine_full).toContain('min_age_to_force_merge_seconds = 3600');
    expect(table!.engine_full).toContain('min_age_to_force_merge_on_partition_only = 1');
  });
});
