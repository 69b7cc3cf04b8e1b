import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { eventuallyServed, insertEvents, serve, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { contractSchema } from '../helpers/contract.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const PUBLISHER_URL = '/v1/publisher/reporting';
const ADMIN_URL = '/v1/admin/reporting';

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
/** Today (UTC) when a test asks: a day taken when this file loaded is yesterday's after a midnight during the run. */
const today = () => new Date().toISOString().slice(0, 10);
const d0 = addDays(today(), -30);
const d = (offset: number) => addDays(d0, offset);
const windowQuery = { date_from: d0, date_to: d(2) };
const noon = (day: string) => Date.parse(`${day}T12:00:00Z`);

const ZERO = { requests: 0, filled: 0, fill_rate: 0, impressions: 0, clicks: 0, ctr: 0, earnings_usd: 0, ecpm_usd: 0, invalid_impressions: 0 };

let ctx: TestContext;
let publisher: { id: string; token: string };
let other: { id: string; token: string };
let pa: string;
let pb: string;
let qa: string;

function asPublisher(query: Record<string, string>, token = publisher.token, headers: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'GET', url: PUBLISHER_URL, query, headers: { authorization: `Bearer ${token}`, ...headers } });
}

beforeAll(async () => {
  ctx = await startTestApp();
  publisher = await createPublisher(ctx);
  other = await createPublisher(ctx);
  pa = (await createPlacement(ctx, publisher.id)).id;
  pb = (await createPlacement(ctx, publisher.id)).id;
  qa = (await createPlacement(ctx, other.id)).id;

  // The publisher earns the default 70 % up to d(0) and 50 % from d(1) on.
  const share = await ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${publisher.id}/revenue-share`, payload: { revenue_share: 0.5, effective_from: d(1) } });
  expect(share.statusCode).toBe(200);

  const on = (placement: string, owner: string, fields: Partial<TrackedEvent>) => sampleEvent({ placement_id: placement, publisher_id: owner, ...fields });
  await insertEvents(ctx, [
    on(pa, publisher.id, { type: 'impression', cost_nanos: 2_500_000, event_time: noon(d(0)) }),
    on(pa, publisher.id, { type: 'click', cost_nanos: 400_000_000, event_time: noon(d(0)) }),
    on(pa, publisher.id, { type: 'impression', cost_nanos: 0, ivt: 'datacenter', event_time: noon(d(0)) }),
    on(pa, publisher.id, { type: 'impression', cost_nanos: 2_500_000, event_time: noon(d(1)) }),
    on(pa, publisher.id, { type: 'conversion', cost_nanos: 1_000_000_000, event_time: noon(d(1)) }),
    on(pb, publisher.id, { type: 'impression', cost_nanos: 2_500_000, event_time: noon(d(2)) }),
    on(qa, other.id, { type: 'impression', cost_nanos: 2_500_000, event_time: noon(d(0)) }),
    on(qa, other.id, { type: 'click', cost_nanos: 0, ivt: 'bot', event_time: noon(d(2)) }),
    on(pa, publisher.id, { type: 'impression', cost_nanos: 2_500_000, event_time: noon(d(3)) }),
    // Forged pixels naming pa: not the publisher's invalid traffic, the operator's (clickhouse/0016).
    on(pa, publisher.id, { type: 'impression', cost_nanos: 0, price_nanos: 0, ivt: 'bad_token', event_time: noon(d(0)) }),
    on(pa, publisher.id, { type: 'impression', cost_nanos: 0, price_nanos: 0, ivt: 'bad_token', event_time: noon(d(0)) }),
  ]);
});

afterAll(async () => {
  await ctx.close();
});

describe('GET /v1/publisher/reporting', () => {
  it('answers 401 without a publisher token or with an advertiser key', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: PUBLISHER_URL })).json().error.code).toBe('auth_missing');
    expect((await asPublisher({}, 'pt_not-a-real-token')).statusCode).toBe(401);
  });

  it('sums each own placement over the window: earnings at the share of each day, rates from the sums, forged impressions left out', async () => {
    const response = await asPublisher(windowQuery);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        {
          placement_id: pa,
          placement_name: `placement ${pa}`,
          ...ZERO,
          impressions: 2,
          clicks: 1,
          ctr: 50,
          // d0: (0.0025 + 0.40) x 0.7 = 0.28175; d1: (0.0025 + 1.00) x 0.5 = 0.50125
          earnings_usd: 0.783,
          ecpm_usd: 391.5, // 0.783 / 2 x 1000
          invalid_impressions: 1,
        },
        { placement_id: pb, placement_name: `placement ${pb}`, ...ZERO, impressions: 1, earnings_usd: 0.00125, ecpm_usd: 1.25 },
      ],
      pagination: { limit: 100, offset: 0, total: 2, has_more: false },
      query: { breakdown: 'placement', ...windowQuery },
    });
  });

  it('answers every day of the window for breakdown=daily', async () => {
    const body = (await asPublisher({ ...windowQuery, breakdown: 'daily' })).json();
    expect(body.data).toEqual([
      { date: d(0), ...ZERO, impressions: 1, clicks: 1, ctr: 100, earnings_usd: 0.28175, ecpm_usd: 281.75, invalid_impressions: 1 },
      { date: d(1), ...ZERO, impressions: 1, earnings_usd: 0.50125, ecpm_usd: 501.25 },
      { date: d(2), ...ZERO, impressions: 1, earnings_usd: 0.00125, ecpm_usd: 1.25 },
    ]);
  });

  it('shows only the own placements, and pages over them', async () => {
    const theirs = (await asPublisher(windowQuery, other.token)).json().data;
    expect(theirs).toEqual([{ placement_id: qa, placement_name: `placement ${qa}`, ...ZERO, impressions: 1, earnings_usd: 0.00175, ecpm_usd: 1.75 }]);
    const theirDays = (await asPublisher({ ...windowQuery, breakdown: 'daily' }, other.token)).json().data;
    expect(theirDays.map((row: { impressions: number }) => row.impressions)).toEqual([1, 0, 0]);
    const second = (await asPublisher({ ...windowQuery, limit: '1', offset: '1' })).json();
    expect(second.data.map((row: { placement_id: string }) => row.placement_id)).toEqual([pb]);
    expect(second.pagination).toEqual({ limit: 1, offset: 1, total: 1, has_more: true });
  });

  it('answers CSV', async () => {
    const response = await asPublisher({ ...windowQuery, breakdown: 'daily' }, publisher.token, { accept: 'text/csv' });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body.split('\r\n').slice(0, 2)).toEqual([
      'date,requests,filled,fill_rate,impressions,clicks,ctr,earnings_usd,ecpm_usd,invalid_impressions',
      `${d(0)},0,0,0,1,1,100,0.28175,281.75,1`,
    ]);
  });

  it('answers 400 naming a parameter it does not take (a misspelt breakdown)', async () => {
    const response = await asPublisher({ brekdown: 'daily' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'brekdown', message: 'unknown parameter' }] });
  });

  it('answers 400 for the same bad window and paging as advertiser reports, and for other breakdowns', async () => {
    const badQueries: Array<Record<string, string>> = [{ date_from: '2026-02-30' }, { date_from: '2026-01-01', date_to: '2026-04-04' }, { limit: '0' }, { breakdown: 'campaign' }];
    for (const query of badQueries) {
      const response = await asPublisher(query);
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      expect(response.json().error.code).toBe('bad_request');
    }
  });
});

describe('serve requests and fills', () => {
  it('counts every serve call and every filled one per placement', async () => {
    const own = await createPublisher(ctx);
    const warmUp = (await createPlacement(ctx, own.id)).id;
    const counted = (await createPlacement(ctx, own.id)).id;
    const unfilled = (await createPlacement(ctx, own.id)).id;
    const created = await createAdvertiser(ctx);
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, created, { targeting: { keywords: { include: [word] } } });
    const about = (placement: string, topic: string) => ({ placement_id: placement, context: { query: `tell me about ${topic}`, response: `Here is ${topic}.` } });
    // The serves' days: from the first's to the report's (a midnight may pass between them).
    const servedFrom = today();
    await eventuallyServed(ctx, own.token, about(warmUp, word), lineItemId);

    for (let i = 0; i < 3; i++) expect((await serve(ctx, own.token, about(counted, word))).json().ad).not.toBeNull();
    for (let i = 0; i < 2; i++) expect((await serve(ctx, own.token, about(counted, uniqueWord()))).json().ad).toBeNull();
    expect((await serve(ctx, own.token, about(unfilled, uniqueWord()))).json().ad).toBeNull();
    // Another publisher's call on this placement is refused and counts for nobody.
    expect((await serve(ctx, other.token, about(counted, word))).statusCode).toBe(404);

    const rows = await eventually(async () => {
      const data = (await asPublisher({ date_from: servedFrom, date_to: today() }, own.token)).json().data as Array<{ placement_id: string; requests: number }>;
      const byId = new Map(data.map((row) => [row.placement_id, row]));
      return byId.get(counted)?.requests === 5 && byId.get(unfilled)?.requests === 1 ? byId : undefined;
    }, 'serve counts in ClickHouse');
    expect(rows.get(counted)).toEqual({ placement_id: counted, placement_name: `placement ${counted}`, ...ZERO, requests: 5, filled: 3, fill_rate: 60 });
    expect(rows.get(unfilled)).toEqual({ placement_id: unfilled, placement_name: `placement ${unfilled}`, ...ZERO, requests: 1 });
  });
});

describe('PUT /v1/admin/publishers/{publisher_id}/revenue-share', () => {
  it('sets a share from a day on, leaving earlier days as they were', async () => {
    const response = await ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${other.id}/revenue-share`, payload: { revenue_share: 0.6, effective_from: d(1) } });
    expect(response.json()).toEqual({ data: { publisher_id: other.id, revenue_share: 0.6, effective_from: d(1) } });
    const first = (await asPublisher({ date_from: d0, date_to: d0 }, other.token)).json().data[0];
    expect(first.earnings_usd).toBe(0.00175); // d0 keeps the default 70 % of 0.0025
  });

  it('defaults effective_from to today', async () => {
    const response = await ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${other.id}/revenue-share`, payload: { revenue_share: 0.65 } });
    expect(response.json().data).toEqual({ publisher_id: other.id, revenue_share: 0.65, effective_from: today() });
  });

  it('answers 422 or 400 for a bad share and 404 for an unknown publisher, changing nothing', async () => {
    for (const payload of [{ revenue_share: 1.5 }, { revenue_share: -0.1 }, { revenue_share: 0.1234567 }, { revenue_share: '0.5' }, { revenue_share: 0.5, effective_from: '2026-02-30' }]) {
      const response = await ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${other.id}/revenue-share`, payload });
      expect([400, 422], JSON.stringify(payload)).toContain(response.statusCode);
    }
    const unknown = await ctx.admin({ method: 'PUT', url: '/v1/admin/publishers/00000000-0000-4000-8000-000000000000/revenue-share', payload: { revenue_share: 0.5 } });
    expect(unknown.statusCode).toBe(404);
    const noToken = await ctx.app.inject({ method: 'PUT', url: `/v1/admin/publishers/${other.id}/revenue-share`, payload: { revenue_share: 0.5 } });
    expect(noToken.statusCode).toBe(401);
  });
});

describe('GET /v1/admin/publishers/{publisher_id}/revenue-share', () => {
  const read = (id: string) => ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${id}/revenue-share` });

  it('answers the default before any share, then the one in effect today and those scheduled, soonest first', async () => {
    const fresh = await createPublisher(ctx);
    const day = today();
    expect((await read(fresh.id)).json()).toEqual({ data: { publisher_id: fresh.id, current: { revenue_share: 0.7, effective_from: null }, scheduled: [] } });
    expect((await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${fresh.id}` })).json().data.revenue_share).toBe(0.7);

    const set = (revenue_share: number, effective_from: string) =>
      ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${fresh.id}/revenue-share`, payload: { revenue_share, effective_from } });
    // A typo's year: nothing prices a day at it yet, but the operator sees it.
    for (const [share, from] of [[0.6, d(0)], [0.07, '2030-01-01'], [0.55, day], [0.5, addDays(day, 1)]] as const) expect((await set(share, from)).statusCode).toBe(200);
    const response = await read(fresh.id);
    expect(response.json()).toEqual({
      data: {
        publisher_id: fresh.id,
        current: { revenue_share: 0.55, effective_from: day },
        scheduled: [
          { revenue_share: 0.5, effective_from: addDays(day, 1) },
          { revenue_share: 0.07, effective_from: '2030-01-01' },
        ],
      },
    });
    const validate = contractSchema('#/components/schemas/RevenueShareSchedule');
    expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
    const publisher = await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${fresh.id}` });
    expect(publisher.json().data).toEqual({ id: fresh.id, name: fresh.name, created_at: fresh.created_at, revenue_share: 0.55 });
  });

  it('answers 404 for an unknown publisher and 401 without the admin token', async () => {
    expect((await read('00000000-0000-4000-8000-000000000000')).json().error.code).toBe('not_found');
    expect((await ctx.app.inject({ method: 'GET', url: `/v1/admin/publishers/${other.id}/revenue-share` })).statusCode).toBe(401);
  });
});

describe('GET /v1/admin/reporting', () => {
  it('totals every publisher and advertiser per day: spend, earnings at each publisher share, margin', async () => {
    const response = await ctx.admin({ method: 'GET', url: ADMIN_URL, query: windowQuery });
    expect(response.statusCode).toBe(200);
    const zero = { requests: 0, filled: 0, impressions: 0, invalid_impressions: 0, clicks: 0, invalid_clicks: 0, spend_usd: 0, publisher_earnings_usd: 0, platform_margin_usd: 0 };
    expect(response.json()).toEqual({
      data: [
        // 0.4025 on pa and 0.0025 on qa, both at 70 %; the two forged impressions on pa count as invalid here
        { date: d(0), ...zero, impressions: 2, invalid_impressions: 3, clicks: 1, spend_usd: 0.405, publisher_earnings_usd: 0.2835, platform_margin_usd: 0.1215 },
        { date: d(1), ...zero, impressions: 1, spend_usd: 1.0025, publisher_earnings_usd: 0.50125, platform_margin_usd: 0.50125 },
        { date: d(2), ...zero, impressions: 1, invalid_clicks: 1, spend_usd: 0.0025, publisher_earnings_usd: 0.00125, platform_margin_usd: 0.00125 },
      ],
      pagination: { limit: 100, offset: 0, total: 3, has_more: false },
      query: windowQuery,
    });
  });

  it('needs the admin token and answers 400 for a bad window', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: ADMIN_URL })).statusCode).toBe(401);
    const advertiser = await createAdvertiser(ctx);
    expect((await ctx.app.inject({ method: 'GET', url: ADMIN_URL, headers: { 'x-api-key': advertiser.key } })).statusCode).toBe(401);
    expect((await ctx.admin({ method: 'GET', url: ADMIN_URL, query: { date_from: '2026-01-01', date_to: '2026-04-04' } })).statusCode).toBe(400);
  });
});

describe('publisher and operator reporting match openapi.yaml', () => {
  const contract = parse(readFileSync(path.join(packageRoot, 'openapi.yaml'), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(contract, 'openapi.yaml');
  const expectSchema = (schema: string, body: unknown) => {
    const validate = ajv.getSchema(`openapi.yaml#/components/schemas/${schema}`)!;
    expect(validate(body) ? [] : validate.errors, JSON.stringify(body)).toEqual([]);
  };

  it('for both publisher breakdowns, the operator totals and a revenue share', async () => {
    expectSchema('PublisherReportingResponse', (await asPublisher(windowQuery)).json());
    expectSchema('PublisherReportingResponse', (await asPublisher({ ...windowQuery, breakdown: 'daily' })).json());
    expectSchema('OperatorReportingResponse', (await ctx.admin({ method: 'GET', url: ADMIN_URL, query: windowQuery })).json());
    const share = await ctx.admin({ method: 'PUT', url: `/v1/admin/publishers/${other.id}/revenue-share`, payload: { revenue_share: 0.65 } });
    expectSchema('RevenueShareResponse', share.json());
  });

  it('rejects a publisher row without earnings, so the check above can fail', () => {
    const validate = ajv.getSchema('openapi.yaml#/components/schemas/PublisherPlacementRow')!;
    expect(validate({ placement_id: pa, placement_name: null, ...ZERO, earnings_usd: undefined })).toBe(false);
  });
});
