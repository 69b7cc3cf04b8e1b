import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { contractSchema } from '../helpers/contract.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { at, createReportCampaign, importEvents, type CampaignFixture, type ImportLine, ZERO_METRICS } from '../helpers/reportingFixtures.js';
import {
  ADDRESSES,
  BOT_UA,
  BROWSER_UA,
  fromAddress,
  serveClaims,
  signedToken,
  trackedLineItem,
  waitForEvents,
  waitPastClickDelay,
} from '../helpers/trackingFixtures.js';
import { detailPaths } from '../helpers/errorDetails.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';

const CAMPAIGNS_URL = '/v1/advertiser/reporting/campaigns';
const TRAFFIC_QUALITY_URL = '/v1/advertiser/reporting/traffic-quality';

function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

let ctx: TestContext;
let key: string;
let otherKey: string;
let c1: CampaignFixture;
let c2: CampaignFixture;
let c3: CampaignFixture;
let c4: CampaignFixture;
let foreign: CampaignFixture;

/** The window every figure below is computed for: five UTC days, three weeks ago. */
const d0 = daysFromToday(-20);
const d = (offset: number) => addDays(d0, offset);
const windowQuery = { date_from: d0, date_to: d(4) };

function get(url: string, query: Record<string, string> = {}, headers: Record<string, string> = {}, apiKey = key) {
  return ctx.app.inject({ method: 'GET', url, query, headers: { 'x-api-key': apiKey, ...headers } });
}

beforeAll(async () => {
  // Tracking links come through a proxy in front of the service: trust loopback for x-forwarded-for.
  ctx = await startTestApp({ TRUST_PROXY: 'loopback' });
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  key = advertiser.key;
  c1 = await createReportCampaign(ctx, advertiser.user.id, { name: 'Spring launch', objective: 'awareness', status: 'active' }, 'tCPM', 2.5);
  c2 = await createReportCampaign(ctx, advertiser.user.id, { name: 'Clicks only', brand_name: 'Beta', objective: 'traffic', status: 'paused' }, 'CPC', 0.4);
  c3 = await createReportCampaign(ctx, advertiser.user.id, { name: 'Conversion only', objective: null, status: 'completed' });
  c4 = await createReportCampaign(ctx, advertiser.user.id, { name: 'No events' });
  const other = await createAdvertiser(ctx, ['reporting']);
  otherKey = other.key;
  foreign = await createReportCampaign(ctx, other.user.id, { name: 'Other organization' });
  const publisher = await createPublisher(ctx);
  const placementA = (await createPlacement(ctx, publisher.id)).id;
  const placementB = (await createPlacement(ctx, publisher.id)).id;

  const valid = { ip: ADDRESSES.comcastResidential, user_agent: BROWSER_UA };
  const line = (campaign: CampaignFixture, type: ImportLine['type'], time: string, extra: Partial<ImportLine> = {}): ImportLine => ({
    type,
    time,
    line_item_id: campaign.line_item_id,
    placement_id: placementA,
    ...valid,
    ...extra,
  });
  // Two imports: the rollup then holds several unmerged rows per key, which only sum() makes whole.
  // c1 bids $2.50 tCPM (0.0025 an impression), c2 $0.40 CPC, c3 only converts.
  await importEvents(ctx, [
    line(c1, 'impression', at(d(-1), '23:59:59.999')),
    line(c1, 'impression', at(d(0), '00:00:00.000')),
    line(c1, 'impression', at(d(0)), { placement_id: placementB }),
    line(c1, 'impression', at(d(1)), { ip: ADDRESSES.awsV4 }),
    line(c1, 'click', at(d(1)), { user_agent: BOT_UA }),
    line(c2, 'click', at(d(1), '08:00:00.000')),
    line(foreign, 'impression', at(d(2))),
    line(foreign, 'impression', at(d(2)), { ip: ADDRESSES.googleCloudV4 }),
  ]);
  await importEvents(ctx, [
    line(c1, 'impression', at(d(2))),
    line(c1, 'impression', at(d(3)), { ip: ADDRESSES.hetznerV6 }),
    line(c1, 'conversion', at(d(4)), { revenue_usd: 12.34 }),
    line(c1, 'click', at(d(4), '23:59:59.999')),
    line(c1, 'impression', at(d(5), '00:00:00.000')),
    line(c2, 'click', at(d(1), '09:00:00.000')),
    line(c3, 'conversion', at(d(3)), { revenue_usd: 5 }),
  ]);
});

afterAll(async () => {
  await ctx.close();
});

describe('reporting authentication and permission', () => {
  for (const url of [CAMPAIGNS_URL, TRAFFIC_QUALITY_URL]) {
    it(`${url} answers 401 auth_missing without a key`, async () => {
      const response = await ctx.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('auth_missing');
    });

    it(`${url} answers 401 auth_invalid with an unknown key`, async () => {
      const response = await get(url, {}, {}, 'not-a-real-key');
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('auth_invalid');
    });

    it(`${url} answers 403 forbidden to a key without the reporting permission`, async () => {
      const campaignsOnly = await createAdvertiser(ctx, ['campaigns']);
      const response = await get(url, {}, {}, campaignsOnly.key);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    });
  }
});

describe('GET /v1/advertiser/reporting/campaigns, campaign breakdown', () => {
  it('sums valid events over the window and recomputes every rate from the sums', async () => {
    const response = await get(CAMPAIGNS_URL, windowQuery);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data).toEqual([
      {
        campaign_id: c1.id,
        campaign_name: 'Spring launch',
        campaign_status: 'active',
        brand_name: 'Acme',
        objective: 'awareness',
        impressions: 3,
        clicks: 1,
        conversions: 1,
        spend_usd: 0.0075,
        revenue_usd: 12.34,
        ctr: 33.333333, // 1 / 3 x 100
        cpc_usd: 0.0075, // 0.0075 / 1
        cpa_usd: 0.0075, // 0.0075 / 1
        cvr: 100, // 1 / 1 x 100
        ecpm_usd: 2.5, // 0.0075 / 3 x 1000
        roas: 1645.333333, // 12.34 / 0.0075
        unique_users: 1, // three impressions from one address and user agent
        campaign_deleted_at: null,
      },
      {
        campaign_id: c2.id,
        campaign_name: 'Clicks only',
        campaign_status: 'paused',
        brand_name: 'Beta',
        objective: 'traffic',
        ...ZERO_METRICS,
        clicks: 2,
        spend_usd: 0.8,
        cpc_usd: 0.4, // ctr, ecpm (no impressions), cpa (no conversions), roas (0 revenue) stay 0
        unique_users: 0,
        campaign_deleted_at: null,
      },
      {
        campaign_id: c3.id,
        campaign_name: 'Conversion only',
        campaign_status: 'completed',
        brand_name: 'Acme',
        objective: null,
        ...ZERO_METRICS,
        conversions: 1,
        revenue_usd: 5, // roas has spend 0 as denominator: 0; cvr has 0 clicks: 0
        unique_users: 0,
        campaign_deleted_at: null,
      },
      {
        campaign_id: c4.id,
        campaign_name: 'No events',
        campaign_status: 'active',
        brand_name: 'Acme',
        objective: 'awareness',
        ...ZERO_METRICS,
        unique_users: 0,
        campaign_deleted_at: null,
      },
    ]);
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 4, has_more: false, next_cursor: null });
    expect(body.query).toEqual({ breakdown: 'campaign', date_from: d0, date_to: d(4), campaign_ids: null });
  });

  it('includes date_from from its first millisecond and date_to to its last', async () => {
    const first = await get(CAMPAIGNS_URL, { date_from: d0, date_to: d0, campaign_ids: c1.id });
    expect(first.json().data[0]).toMatchObject({ impressions: 2, clicks: 0 });
    const last = await get(CAMPAIGNS_URL, { date_from: d(4), date_to: d(4), campaign_ids: c1.id });
    expect(last.json().data[0]).toMatchObject({ impressions: 0, clicks: 1, conversions: 1 });
    const before = await get(CAMPAIGNS_URL, { date_from: d(-1), date_to: d(-1), campaign_ids: c1.id });
    expect(before.json().data[0]).toMatchObject({ impressions: 1, spend_usd: 0.0025 });
    const after = await get(CAMPAIGNS_URL, { date_from: d(5), date_to: d(5), campaign_ids: c1.id });
    expect(after.json().data[0]).toMatchObject({ impressions: 1, spend_usd: 0.0025 });
  });

  it('never counts invalid traffic', async () => {
    const response = await get(CAMPAIGNS_URL, { date_from: d(1), date_to: d(3), campaign_ids: c1.id });
    // d(1)..d(3) hold two datacenter impressions and a bot click for c1, and one valid impression.
    expect(response.json().data[0]).toMatchObject({ impressions: 1, clicks: 0, spend_usd: 0.0025 });
  });

  it('filters by campaign_ids, dropping entries that are not UUIDs and ids of other organizations', async () => {
    const response = await get(CAMPAIGNS_URL, {
      ...windowQuery,
      campaign_ids: ` ${c2.id.toUpperCase()},not-a-uuid,,${foreign.id},${c1.id},${c2.id}`,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data.map((row: { campaign_id: string }) => row.campaign_id)).toEqual([c1.id, c2.id]);
    expect(body.query.campaign_ids).toEqual([c2.id, foreign.id, c1.id]);
  });

  it('shows another organization nothing of a campaign id it does not own', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, campaign_ids: c1.id }, {}, otherKey);
    expect(response.json().data).toEqual([]);
    const own = await get(CAMPAIGNS_URL, windowQuery, {}, otherKey);
    expect(own.json().data).toEqual([expect.objectContaining({ campaign_id: foreign.id, impressions: 1, spend_usd: 0.0025 })]);
  });

  it('treats campaign_ids whose entries are all invalid as a filter matching nothing', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, campaign_ids: 'abc,123' });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual([]);
    expect(response.json().query.campaign_ids).toEqual([]);
  });

  it('treats an empty campaign_ids as no filter', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, campaign_ids: '' });
    expect(response.json().data).toHaveLength(4);
    expect(response.json().query.campaign_ids).toBeNull();
  });

  it('defaults to the 30 days ending today (UTC), breakdown campaign, limit 100, offset 0', async () => {
    const response = await get(CAMPAIGNS_URL);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.query).toEqual({ breakdown: 'campaign', date_from: daysFromToday(-30), date_to: daysFromToday(0), campaign_ids: null });
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 4, has_more: false, next_cursor: null });
    // d(-1)..d(5) all lie within the default window.
    expect(body.data[0]).toMatchObject({ campaign_id: c1.id, impressions: 5, clicks: 1, conversions: 1 });
  });
});

describe('GET /v1/advertiser/reporting/campaigns, daily breakdown', () => {
  it('answers one row per day, ascending, every day present, summed over all campaigns', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'daily' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data).toEqual([
      { date: d(0), ...ZERO_METRICS, impressions: 2, spend_usd: 0.005, ecpm_usd: 2.5 },
      { date: d(1), ...ZERO_METRICS, clicks: 2, spend_usd: 0.8, cpc_usd: 0.4 },
      { date: d(2), ...ZERO_METRICS, impressions: 1, spend_usd: 0.0025, ecpm_usd: 2.5 },
      { date: d(3), ...ZERO_METRICS, conversions: 1, revenue_usd: 5 },
      { date: d(4), ...ZERO_METRICS, clicks: 1, conversions: 1, revenue_usd: 12.34, cvr: 100 },
    ]);
    expect(body.pagination).toEqual({ limit: 100, offset: 0, total: 5, has_more: false });
    expect(body.query).toEqual({ breakdown: 'daily', date_from: d0, date_to: d(4), campaign_ids: null });
  });

  it('sums only the filtered campaigns of the organization', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'daily', campaign_ids: `${c2.id},${foreign.id}` });
    const rows = response.json().data;
    expect(rows.map((row: { clicks: number }) => row.clicks)).toEqual([0, 2, 0, 0, 0]);
    expect(rows[2].impressions).toBe(0);
  });

  it('answers zero rows for every day of an organization without events', async () => {
    const empty = await createAdvertiser(ctx, ['reporting']);
    const response = await get(CAMPAIGNS_URL, { date_from: d0, date_to: d(2), breakdown: 'daily' }, {}, empty.key);
    expect(response.json().data).toEqual([0, 1, 2].map((offset) => ({ date: d(offset), ...ZERO_METRICS })));
  });

  it('pages over the days', async () => {
    const query = { date_from: d(-5), date_to: d(4), breakdown: 'daily', limit: '4' };
    const pages = [];
    for (let offset = 0; ; offset += 4) {
      const body = (await get(CAMPAIGNS_URL, { ...query, offset: String(offset) })).json();
      pages.push(body);
      if (!body.pagination.has_more) break;
    }
    expect(pages.map((page) => page.pagination)).toEqual([
      { limit: 4, offset: 0, total: 4, has_more: true },
      { limit: 4, offset: 4, total: 4, has_more: true },
      { limit: 4, offset: 8, total: 2, has_more: false },
    ]);
    const dates = pages.flatMap((page) => page.data.map((row: { date: string }) => row.date));
    expect(dates).toEqual(Array.from({ length: 10 }, (_, index) => d(index - 5)));
    expect(pages[1].data[0]).toMatchObject({ date: d(-1), impressions: 1 });
  });
});

describe('reporting pagination over campaigns', () => {
  it('walks every page without repeating or skipping a campaign, in (created_at, id) order', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    // Campaigns created in the same instant tie on created_at: give three and two of the seven the
    // same time on purpose, so the id has to break the ties on every run, not only on unlucky ones.
    const createdAt = ['2026-03-01T10:00:00Z', '2026-03-01T09:00:00Z', '2026-03-01T10:00:00Z', '2026-03-01T08:00:00Z', '2026-03-01T10:00:00Z', '2026-03-01T09:00:00Z', '2026-03-01T11:00:00Z'];
    const created: Array<{ id: string; createdAt: string }> = [];
    for (const time of createdAt) {
      const { id } = await createReportCampaign(ctx, advertiser.user.id);
      await ctx.stores.db.query('UPDATE campaigns SET created_at = $2 WHERE id = $1', [id, time]);
      created.push({ id, createdAt: time });
    }
    // Both are compared as plain strings: ISO times of one format, and uuids in lowercase hex, which
    // order like Postgres orders uuids (byte by byte).
    const key = (campaign: { id: string; createdAt: string }) => `${campaign.createdAt} ${campaign.id}`;
    const documentedOrder = created.sort((a, b) => (key(a) < key(b) ? -1 : 1)).map((campaign) => campaign.id);

    const seen: string[] = [];
    const pages = [];
    for (let offset = 0; ; offset += 3) {
      const body = (await get(CAMPAIGNS_URL, { limit: '3', offset: String(offset) }, {}, advertiser.key)).json();
      pages.push(body.pagination);
      seen.push(...body.data.map((row: { campaign_id: string }) => row.campaign_id));
      if (!body.pagination.has_more) break;
    }
    expect(pages).toEqual([
      { limit: 3, offset: 0, total: 3, has_more: true, next_cursor: expect.any(String) },
      { limit: 3, offset: 3, total: 3, has_more: true, next_cursor: expect.any(String) },
      { limit: 3, offset: 6, total: 1, has_more: false, next_cursor: null },
    ]);
    expect(new Set(seen).size).toBe(7);
    expect(seen).toEqual(documentedOrder);

    const byCursor: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = cursor ? { limit: '3', cursor } : { limit: '3' };
      const body: { data: Array<{ campaign_id: string }>; pagination: { next_cursor: string | null } } = (await get(CAMPAIGNS_URL, query, {}, advertiser.key)).json();
      byCursor.push(...body.data.map((row) => row.campaign_id));
      cursor = body.pagination.next_cursor;
    } while (cursor);
    expect(byCursor).toEqual(documentedOrder);
  });

  it('answers an empty page past the end', async () => {
    const response = await get(CAMPAIGNS_URL, { offset: '4' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ data: [], pagination: { limit: 100, offset: 4, total: 0, has_more: false } });
  });

  it('says has_more when a page is exactly full', async () => {
    const response = await get(CAMPAIGNS_URL, { limit: '4' });
    expect(response.json().pagination).toEqual({ limit: 4, offset: 0, total: 4, has_more: true, next_cursor: expect.any(String) });
  });
});

describe('reporting parameters', () => {
  const badRequests: Array<[string, Record<string, string>]> = [
    ['a date that does not exist', { date_from: '2026-02-30', date_to: '2026-03-05' }],
    ['a date without leading zeros', { date_from: '2026-1-5', date_to: '2026-01-20' }],
    ['a date that is not a date', { date_to: 'yesterday' }],
    ['a reversed range', { date_from: '2026-03-02', date_to: '2026-03-01' }],
    ['a window of 93 days (date_to minus date_from)', { date_from: '2026-01-01', date_to: '2026-04-04' }],
    ['an unknown breakdown', { breakdown: 'weekly' }],
    ['limit 0', { limit: '0' }],
    ['limit 1001', { limit: '1001' }],
    ['a fractional limit', { limit: '1.5' }],
    ['a limit that is not a number', { limit: 'ten' }],
    ['a negative offset', { offset: '-1' }],
    ['a fractional offset', { offset: '2.5' }],
    ['an unknown format', { format: 'xml' }],
  ];
  for (const [what, query] of badRequests) {
    it(`answers 400 bad_request for ${what}`, async () => {
      const response = await get(CAMPAIGNS_URL, query);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'bad_request', message: expect.any(String), details: expect.any(Array) });
    });
  }

  it('answers 400 naming each parameter the route does not take (a misspelt date_from, breakdown on traffic-quality), never the default window', async () => {
    const misspelt = await get(CAMPAIGNS_URL, { date_form: '2026-01-01', limt: '5' });
    expect(misspelt.statusCode).toBe(400);
    expect(misspelt.json().error).toMatchObject({
      code: 'bad_request',
      details: [
        { path: 'date_form', message: 'unknown parameter' },
        { path: 'limt', message: 'unknown parameter' },
      ],
    });
    const breakdown = await get(TRAFFIC_QUALITY_URL, { breakdown: 'weekly' });
    expect(breakdown.statusCode).toBe(400);
    expect(breakdown.json().error.details).toEqual([{ path: 'breakdown', message: 'unknown parameter' }]);
  });

  it('accepts a window of exactly 92 days, date_to minus date_from (93 calendar days)', async () => {
    const response = await get(CAMPAIGNS_URL, { date_from: '2026-01-01', date_to: '2026-04-03' });
    expect(response.statusCode).toBe(200);
    const ending = await get(CAMPAIGNS_URL, { date_from: daysFromToday(-92) });
    expect(ending.statusCode).toBe(200);
    const over = await get(CAMPAIGNS_URL, { date_from: daysFromToday(-93) });
    expect(over.statusCode).toBe(400);
  });

  it('accepts a one-day window, limit 1000 and a large offset', async () => {
    const response = await get(CAMPAIGNS_URL, { date_from: '2026-02-28', date_to: '2026-02-28', limit: '1000', offset: '5000' });
    expect(response.statusCode).toBe(200);
    expect(response.json().pagination).toEqual({ limit: 1000, offset: 5000, total: 0, has_more: false, next_cursor: null });
  });

  it('names every offending parameter', async () => {
    const response = await get(CAMPAIGNS_URL, { date_from: '2026-02-30', breakdown: 'weekly' });
    const paths = detailPaths(response);
    expect(paths).toEqual(expect.arrayContaining(['date_from', 'breakdown']));
  });
});

describe('reporting as CSV', () => {
  const header =
    'campaign_id,campaign_name,campaign_status,brand_name,objective,impressions,clicks,conversions,spend_usd,revenue_usd,ctr,cpc_usd,cpa_usd,cvr,ecpm_usd,roas,unique_users,campaign_deleted_at';

  it('streams the same rows as CSV for Accept: text/csv', async () => {
    const response = await get(CAMPAIGNS_URL, { ...windowQuery, limit: '2' }, { accept: 'text/csv' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="campaign-report_${d0}_${d(4)}.csv"`);
    expect(response.body).toBe(
      [
        header,
        `${c1.id},Spring launch,active,Acme,awareness,3,1,1,0.0075,12.34,33.333333,0.0075,0.0075,100,2.5,1645.333333,1,`,
        `${c2.id},Clicks only,paused,Beta,traffic,0,2,0,0.8,0,0,0.4,0,0,0,0,0,`,
        '',
      ].join('\r\n'),
    );
  });

  it('answers CSV for format=csv, and JSON when the Accept header prefers JSON', async () => {
    const byParam = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'daily', format: 'csv' });
    expect(byParam.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = byParam.body.split('\r\n');
    expect(lines[0]).toBe('date,impressions,clicks,conversions,spend_usd,revenue_usd,ctr,cpc_usd,cpa_usd,cvr,ecpm_usd,roas');
    expect(lines[4]).toBe(`${d(3)},0,0,1,0,5,0,0,0,0,0,0`);
    expect(lines).toHaveLength(7);
    const preferred = await get(CAMPAIGNS_URL, windowQuery, { accept: 'text/csv;q=0.5, application/json' });
    expect(preferred.headers['content-type']).toMatch(/^application\/json/);
    const overridden = await get(CAMPAIGNS_URL, { ...windowQuery, format: 'json' }, { accept: 'text/csv' });
    expect(overridden.headers['content-type']).toMatch(/^application\/json/);
  });

  it('quotes fields per RFC 4180, neutralizes formulas, and writes an empty field for no objective', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const quoted = await createReportCampaign(ctx, advertiser.user.id, { name: 'Summer, "big" sale\nday two', objective: null });
    const formula = await createReportCampaign(ctx, advertiser.user.id, { name: '=HYPERLINK("http://x")', brand_name: '-Brand' });
    const response = await get(CAMPAIGNS_URL, { format: 'csv' }, {}, advertiser.key);
    expect(response.body.split('\r\n').slice(1)).toEqual([
      `${quoted.id},"Summer, ""big"" sale\nday two",active,Acme,,0,0,0,0,0,0,0,0,0,0,0,0,`,
      `${formula.id},"'=HYPERLINK(""http://x"")",active,'-Brand,awareness,0,0,0,0,0,0,0,0,0,0,0,0,`,
      '',
    ]);
  });

  it('allows pages up to 100000 rows as CSV but not as JSON', async () => {
    expect((await get(CAMPAIGNS_URL, { format: 'csv', limit: '100000' })).statusCode).toBe(200);
    expect((await get(CAMPAIGNS_URL, { format: 'csv', limit: '100001' })).statusCode).toBe(400);
    expect((await get(CAMPAIGNS_URL, { limit: '100000' })).statusCode).toBe(400);
  });

  it('streams a CSV export larger than one batch in the same order as JSON pages', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const values = Array.from({ length: 1203 }, (_, index) => `($1, $2, 'bulk ${index}', 'Bulk', 'active')`).join(', ');
    await ctx.stores.db.query(`INSERT INTO campaigns (organization_id, user_id, name, brand_name, status) VALUES ${values}`, [
      advertiser.organization.id,
      advertiser.user.id,
    ]);
    const csv = await get(CAMPAIGNS_URL, { format: 'csv', limit: '1202', offset: '1' }, {}, advertiser.key);
    const csvIds = csv.body
      .split('\r\n')
      .slice(1, -1)
      .map((line) => line.split(',')[0]);
    const jsonIds: string[] = [];
    for (let offset = 1; offset < 1203; offset += 1000) {
      const page = await get(CAMPAIGNS_URL, { limit: '1000', offset: String(offset) }, {}, advertiser.key);
      jsonIds.push(...page.json().data.map((row: { campaign_id: string }) => row.campaign_id));
    }
    expect(csvIds).toHaveLength(1202);
    expect(new Set(csvIds).size).toBe(1202);
    expect(csvIds).toEqual(jsonIds);
  });
});

describe('GET /v1/advertiser/reporting/traffic-quality', () => {
  it('shows invalid events per campaign and reason, which the performance report leaves out', async () => {
    const response = await get(TRAFFIC_QUALITY_URL, windowQuery);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        { campaign_id: c1.id, campaign_name: 'Spring launch', ivt_reason: 'bot', invalid_impressions: 0, invalid_clicks: 1, invalid_conversions: 0 },
        { campaign_id: c1.id, campaign_name: 'Spring launch', ivt_reason: 'datacenter', invalid_impressions: 2, invalid_clicks: 0, invalid_conversions: 0 },
      ],
      pagination: { limit: 100, offset: 0, total: 2, has_more: false },
      query: { date_from: d0, date_to: d(4), campaign_ids: null },
    });
  });

  it('honours the window, campaign_ids, tenancy and paging', async () => {
    const narrow = await get(TRAFFIC_QUALITY_URL, { date_from: d(3), date_to: d(3) });
    expect(narrow.json().data).toEqual([expect.objectContaining({ ivt_reason: 'datacenter', invalid_impressions: 1 })]);
    const filtered = await get(TRAFFIC_QUALITY_URL, { ...windowQuery, campaign_ids: `${c2.id},${foreign.id}` });
    expect(filtered.json().data).toEqual([]);
    const paged = await get(TRAFFIC_QUALITY_URL, { ...windowQuery, limit: '1', offset: '1' });
    expect(paged.json().data).toEqual([expect.objectContaining({ ivt_reason: 'datacenter' })]);
    expect(paged.json().pagination).toEqual({ limit: 1, offset: 1, total: 1, has_more: true });
    const other = await get(TRAFFIC_QUALITY_URL, windowQuery, {}, otherKey);
    expect(other.json().data).toEqual([expect.objectContaining({ campaign_id: foreign.id, ivt_reason: 'datacenter', invalid_impressions: 1 })]);
  });

  it('answers 400 for the same bad parameters as the report', async () => {
    expect((await get(TRAFFIC_QUALITY_URL, { date_from: '2026-02-30' })).statusCode).toBe(400);
    expect((await get(TRAFFIC_QUALITY_URL, { date_from: '2026-01-01', date_to: '2026-04-04' })).statusCode).toBe(400);
  });

  it('answers CSV too', async () => {
    const response = await get(TRAFFIC_QUALITY_URL, windowQuery, { accept: 'text/csv' });
    expect(response.body).toBe(
      [
        'campaign_id,campaign_name,ivt_reason,invalid_impressions,invalid_clicks,invalid_conversions',
        `${c1.id},Spring launch,bot,0,1,0`,
        `${c1.id},Spring launch,datacenter,2,0,0`,
        '',
      ].join('\r\n'),
    );
  });
});

describe('reporting responses match openapi.yaml', () => {
  const expectSchema = (schema: string, body: unknown) => {
    const validate = contractSchema(`#/components/schemas/${schema}`);
    expect(validate(body) ? [] : validate.errors, JSON.stringify(body)).toEqual([]);
  };

  it('for both breakdowns, traffic quality and errors', async () => {
    expectSchema('AdvertiserReportingResponse', (await get(CAMPAIGNS_URL, windowQuery)).json());
    expectSchema('AdvertiserReportingResponse', (await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'daily', campaign_ids: c1.id })).json());
    expectSchema('TrafficQualityResponse', (await get(TRAFFIC_QUALITY_URL, windowQuery)).json());
    expectSchema('Error', (await get(CAMPAIGNS_URL, { limit: '0' })).json());
  });

  it('rejects a row that breaks the contract, so the check above can fail', () => {
    const validate = contractSchema('#/components/schemas/AdvertiserCampaignRow');
    expect(validate({ campaign_id: c1.id, campaign_name: 'x' })).toBe(false);
  });
});

describe('reporting on events from tracking links', () => {
  it('reports impressions and clicks that came through the pixel and the click redirect, and filters invalid ones', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 2.5 });
    const serve = signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000));
    const served = await fromAddress(ctx, `${IMPRESSION_PATH}${serve}`, ADDRESSES.comcastResidential);
    const impressionAnsweredAt = Date.now();
    expect(served.statusCode).toBe(200);
    await fromAddress(ctx, `${IMPRESSION_PATH}${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, ADDRESSES.awsV4);
    // A click sooner than a second after its impression is not a person deciding to follow the ad.
    await waitPastClickDelay(impressionAnsweredAt);
    expect((await fromAddress(ctx, `${CLICK_PATH}${serve}`, ADDRESSES.comcastResidential)).statusCode).toBe(302);
    await waitForEvents(ctx, item.lineItemId, 3);

    const window = { date_from: daysFromToday(-1), date_to: daysFromToday(0), campaign_ids: item.campaignId };
    const report = await get(CAMPAIGNS_URL, window, {}, item.key);
    expect(report.json().data).toEqual([
      expect.objectContaining({
        campaign_id: item.campaignId,
        ...ZERO_METRICS,
        impressions: 1,
        clicks: 1,
        spend_usd: 0.0025,
        ctr: 100,
        cpc_usd: 0.0025,
        ecpm_usd: 2.5,
      }),
    ]);
    const quality = await get(TRAFFIC_QUALITY_URL, window, {}, item.key);
    expect(quality.json().data).toEqual([
      expect.objectContaining({ campaign_id: item.campaignId, ivt_reason: 'datacenter', invalid_impressions: 1, invalid_clicks: 0 }),
    ]);
  });
});

describe('reporting when ClickHouse fails', () => {
  it('answers 500 internal_error without internals, as JSON even when CSV was asked for', async () => {
    await ctx.stores.ch.client.command({ query: 'RENAME TABLE campaign_daily_stats_v1 TO campaign_daily_stats_v1_unavailable' });
    try {
      for (const headers of [{}, { accept: 'text/csv' }] as Array<Record<string, string>>) {
        const response = await get(CAMPAIGNS_URL, windowQuery, headers);
        expect(response.statusCode).toBe(500);
        expect(response.json()).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
      }
      const daily = await get(CAMPAIGNS_URL, { ...windowQuery, breakdown: 'daily' });
      expect(daily.statusCode).toBe(500);
    } finally {
      await ctx.stores.ch.client.command({ query: 'RENAME TABLE campaign_daily_stats_v1_unavailable TO campaign_daily_stats_v1' });
    }
    expect((await get(CAMPAIGNS_URL, windowQuery)).statusCode).toBe(200);
  });
});
