import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { createReportCampaign, type CampaignFixture } from '../helpers/reportingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { campaignEvents, maskedAddress } from '../../src/reporting/eventExport.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const URL = '/v1/advertiser/reporting/events';

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
const d0 = addDays(new Date().toISOString().slice(0, 10), -10);
const d = (offset: number) => addDays(d0, offset);

let ctx: TestContext;
let key: string;
let otherKey: string;
let campaign: CampaignFixture;
let foreign: CampaignFixture;
let placement: string;
const ids: Record<string, string> = {};
const creatives = { card: randomUUID(), banner: randomUUID() };

function get(query: Record<string, string>, headers: Record<string, string> = {}, apiKey = key) {
  return ctx.app.inject({ method: 'GET', url: URL, query, headers: { 'x-api-key': apiKey, ...headers } });
}

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  key = advertiser.key;
  campaign = await createReportCampaign(ctx, advertiser.user.id);
  const other = await createAdvertiser(ctx, ['reporting']);
  otherKey = other.key;
  foreign = await createReportCampaign(ctx, other.user.id);
  placement = (await createPlacement(ctx, (await createPublisher(ctx)).id)).id;
  const own = (fields: Partial<TrackedEvent>) =>
    sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, placement_id: placement, ...fields });
  const events = [
    own({ type: 'impression', creative_id: creatives.card, event_time: Date.parse(`${d(0)}T00:00:00.000Z`), ip: '81.2.69.142', ip_class: 'residential', country: 'GB', cost_nanos: 2_500_000 }),
    own({ type: 'click', creative_id: creatives.banner, event_time: Date.parse(`${d(0)}T08:30:00.250Z`), ip: '2001:db8:1234:5678::1', ip_class: 'datacenter', ivt: 'datacenter', cost_nanos: 0 }),
    own({ type: 'conversion', creative_id: creatives.card, event_time: Date.parse(`${d(1)}T23:59:59.999Z`), ip: '81.2.69.142', ip_class: 'residential', country: 'GB', cost_nanos: 1_234_567, revenue_nanos: 12_345_678_901 }),
    own({ type: 'impression', event_time: Date.parse(`${d(2)}T00:00:00.000Z`) }),
    sampleEvent({ campaign_id: foreign.id, line_item_id: foreign.line_item_id, event_time: Date.parse(`${d(0)}T12:00:00.000Z`) }),
  ];
  for (const [index, name] of ['impression', 'click', 'conversion'].entries()) ids[name] = events[index]!.event_id;
  await insertEvents(ctx, events);
});

afterAll(async () => {
  await ctx.close();
});

const expected = () => [
  { time: `${d(0)}T00:00:00.000Z`, event_id: ids.impression, type: 'impression', line_item_id: campaign.line_item_id, placement_id: placement, masked_ip: '81.2.69.0', ip_class: 'residential', country: 'GB', ivt_reason: null, cost_usd: 0.0025, unbilled_reason: null, creative_id: creatives.card, revenue_usd: 0 },
  { time: `${d(0)}T08:30:00.250Z`, event_id: ids.click, type: 'click', line_item_id: campaign.line_item_id, placement_id: placement, masked_ip: '2001:db8:1234::', ip_class: 'datacenter', country: 'unknown', ivt_reason: 'datacenter', cost_usd: 0, unbilled_reason: null, creative_id: creatives.banner, revenue_usd: 0 },
  { time: `${d(1)}T23:59:59.999Z`, event_id: ids.conversion, type: 'conversion', line_item_id: campaign.line_item_id, placement_id: placement, masked_ip: '81.2.69.0', ip_class: 'residential', country: 'GB', ivt_reason: null, cost_usd: 0.001234567, unbilled_reason: null, creative_id: creatives.card, revenue_usd: 12.345678901 },
];

describe('GET /v1/advertiser/reporting/events', () => {
  it('streams every event of the campaign in the window, valid and invalid, as NDJSON', async () => {
    const response = await get({ campaign_id: campaign.id, date_from: d0, date_to: d(1) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.body.endsWith('\n')).toBe(true);
    expect(response.body.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(expected());
  });

  it('streams CSV for Accept: text/csv or format=csv', async () => {
    for (const [query, headers] of [
      [{ campaign_id: campaign.id, date_from: d0, date_to: d(1) }, { accept: 'text/csv' }],
      [{ campaign_id: campaign.id, date_from: d0, date_to: d(1), format: 'csv' }, {}],
    ] as Array<[Record<string, string>, Record<string, string>]>) {
      const response = await get(query, headers);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.body.split('\r\n')).toEqual([
        'time,event_id,type,line_item_id,placement_id,masked_ip,ip_class,country,ivt_reason,cost_usd,unbilled_reason,creative_id,revenue_usd',
        `${d(0)}T00:00:00.000Z,${ids.impression},impression,${campaign.line_item_id},${placement},81.2.69.0,residential,GB,,0.0025,,${creatives.card},0`,
        `${d(0)}T08:30:00.250Z,${ids.click},click,${campaign.line_item_id},${placement},2001:db8:1234::,datacenter,unknown,datacenter,0,,${creatives.banner},0`,
        `${d(1)}T23:59:59.999Z,${ids.conversion},conversion,${campaign.line_item_id},${placement},81.2.69.0,residential,GB,,0.001234567,,${creatives.card},12.345678901`,
        '',
      ]);
    }
  });

  it("reconciles with the creative breakdown: the valid rows' counts, cost and revenue summed per creative_id", async () => {
    const rows = (await get({ campaign_id: campaign.id, date_from: d0, date_to: d(1) })).body.trimEnd().split('\n').map((line) => JSON.parse(line));
    const sums = new Map<string, { impressions: number; clicks: number; conversions: number; spend_usd: number; revenue_usd: number }>();
    for (const row of rows.filter((event) => event.ivt_reason === null)) {
      const sum = sums.get(row.creative_id) ?? { impressions: 0, clicks: 0, conversions: 0, spend_usd: 0, revenue_usd: 0 };
      sum[`${row.type}s` as 'impressions' | 'clicks' | 'conversions'] += 1;
      sum.spend_usd += row.cost_usd;
      sum.revenue_usd += row.revenue_usd;
      sums.set(row.creative_id, sum);
    }
    const report = await ctx.app.inject({
      method: 'GET',
      url: '/v1/advertiser/reporting/campaigns',
      query: { breakdown: 'creative', date_from: d0, date_to: d(1) },
      headers: { 'x-api-key': key },
    });
    const reported = report.json().data.map((row: Record<string, number | string>) => ({
      creative_id: row.creative_id,
      impressions: row.impressions,
      clicks: row.clicks,
      conversions: row.conversions,
      spend_usd: row.spend_usd,
      revenue_usd: row.revenue_usd,
    }));
    const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
    expect(reported).toEqual(
      [...sums].map(([creativeId, sum]) => ({ creative_id: creativeId, ...sum, spend_usd: round(sum.spend_usd), revenue_usd: round(sum.revenue_usd) })),
    );
    expect(reported).toEqual([expect.objectContaining({ creative_id: creatives.card, conversions: 1, revenue_usd: 12.345679 })]);
  });

  it('answers an empty stream for a window without events', async () => {
    const response = await get({ campaign_id: campaign.id, date_from: d(5), date_to: d(6) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('answers 404 for a campaign of another organization or none, and 403 without the reporting permission', async () => {
    expect((await get({ campaign_id: campaign.id }, {}, otherKey)).statusCode).toBe(404);
    expect((await get({ campaign_id: '00000000-0000-4000-8000-000000000000' })).json().error.code).toBe('not_found');
    const campaignsOnly = await createAdvertiser(ctx, ['campaigns']);
    expect((await get({ campaign_id: campaign.id }, {}, campaignsOnly.key)).statusCode).toBe(403);
  });

  it('answers 400 without a campaign, for a bad id, a bad window or format', async () => {
    const bad: Array<Record<string, string>> = [
      {},
      { campaign_id: 'abc' },
      { campaign_id: campaign.id, date_from: '2026-01-01', date_to: '2026-04-04' },
      { campaign_id: campaign.id, date_from: '2026-03-02', date_to: '2026-03-01' },
      { campaign_id: campaign.id, format: 'json' },
    ];
    for (const query of bad) {
      const response = await get(query);
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      expect(response.json().error.code).toBe('bad_request');
    }
  });
});

describe('audit export paging', () => {
  it('reads page after page, never more than a page at a time, without repeating or skipping events of the same millisecond', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const bulk = await createReportCampaign(ctx, advertiser.user.id);
    const sameMillisecond = Date.parse(`${d(3)}T10:00:00.000Z`);
    const events = Array.from({ length: 7 }, () => sampleEvent({ campaign_id: bulk.id, line_item_id: bulk.line_item_id, event_time: sameMillisecond }));
    await insertEvents(ctx, events);
    const pages = [];
    for await (const page of campaignEvents(ctx.stores.ch, { campaignId: bulk.id, dateFrom: d(3), dateTo: d(3) }, 3)) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((event) => event.event_id).sort()).toEqual(events.map((event) => event.event_id).sort());
  });

  it('masks IPv4 to /24 and IPv6 to /48', () => {
    expect(maskedAddress('203.0.113.77')).toBe('203.0.113.0');
    expect(maskedAddress('2001:db8:abcd:12::9')).toBe('2001:db8:abcd::');
    expect(maskedAddress('::ffff:198.51.100.9')).toBe('198.51.100.0');
    expect(maskedAddress('')).toBe('');
  });
});

describe('audit export lines match openapi.yaml', () => {
  it('every NDJSON line is an ExportedEvent, and a line without cost is not', async () => {
    const contract = parse(readFileSync(path.join(packageRoot, 'openapi.yaml'), 'utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(contract, 'openapi.yaml');
    const validate = ajv.getSchema('openapi.yaml#/components/schemas/ExportedEvent')!;
    const response = await get({ campaign_id: campaign.id, date_from: d0, date_to: d(1) });
    for (const line of response.body.trimEnd().split('\n')) expect(validate(JSON.parse(line)) ? [] : validate.errors).toEqual([]);
    const { cost_usd: _, ...withoutCost } = expected()[0]!;
    expect(validate(withoutCost)).toBe(false);
  });
});
