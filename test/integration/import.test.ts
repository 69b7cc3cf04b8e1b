import { readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { EVENT_RETENTION_DAYS } from '../../src/tracking/eventImport.js';
import { ADDRESSES, BOT_UA, BROWSER_UA, eventsOf, rollupOf, trackedLineItem, waitForEvents } from '../helpers/trackingFixtures.js';
import { metricSample } from '../helpers/metricSample.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp();
});

afterAll(async () => {
  await ctx.close();
});

function importNdjson(body: string, headers: Record<string, string> = {}) {
  return ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson', ...headers }, payload: body });
}

const ndjson = (lines: Array<object | string>) => lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';

describe('POST /v1/admin/events/import', () => {
  it('stores each line classified and priced by the line item, counts accepted, invalid and rejected, and is in ClickHouse when it answers', async () => {
    const cpm = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 3 }, { daily: 100, currency: 'EUR' });
    const time = new Date(Date.now() - 3_600_000).toISOString();
    const base = { time, line_item_id: cpm.lineItemId, placement_id: cpm.placementId, user_agent: BROWSER_UA };
    const body = ndjson([
      { ...base, type: 'impression', ip: ADDRESSES.comcastResidential },
      { ...base, type: 'impression', ip: ADDRESSES.telekomResidentialV6 },
      { ...base, type: 'click', ip: ADDRESSES.comcastResidential },
      { ...base, type: 'conversion', ip: ADDRESSES.comcastResidential, revenue_usd: 42.5 },
      { ...base, type: 'impression', ip: ADDRESSES.awsV4 },
      { ...base, type: 'impression', ip: ADDRESSES.comcastResidential, user_agent: BOT_UA },
      '{not json',
      { ...base, type: 'impression', ip: ADDRESSES.comcastResidential, line_item_id: '00000000-0000-4000-8000-000000000000' },
      { ...base, type: 'impression', ip: ADDRESSES.comcastResidential, placement_id: 'no-such-placement' },
      { ...base, type: 'view', ip: 'not-an-ip' },
      '',
      { ...base, type: 'impression', ip: ADDRESSES.comcastResidential, revenue_usd: 1 },
    ]);
    const response = await importNdjson(body);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data).toMatchObject({ accepted: 4, invalid: 2, rejected: 5 });
    expect(data.errors.map((error: { line: number }) => error.line)).toEqual([7, 8, 9, 10, 12]);
    expect(data.errors[3].message).toMatch(/type/);
    expect(data.errors[3].message).toMatch(/ip/);

    // No polling: the import answers after its events are written.
    const events = await eventsOf(ctx, cpm.lineItemId);
    expect(events).toHaveLength(6);
    // 3 EUR per thousand at 1.035 USD/EUR: 3,105,000 nano-USD per valid impression.
    const impressionCost = 3_105_000;
    expect(events.filter((event) => event.ivt === '' && event.type === 'impression').map((event) => event.cost_nanos)).toEqual([
      impressionCost,
      impressionCost,
    ]);
    expect(events.find((event) => event.ip === ADDRESSES.awsV4)).toMatchObject({ ivt: 'datacenter', cost_nanos: 0 });
    expect(events.find((event) => event.user_agent === BOT_UA)).toMatchObject({ ivt: 'bot', cost_nanos: 0 });
    for (const event of events) {
      expect(event).toMatchObject({ source: 'import', campaign_id: cpm.campaignId, publisher_id: cpm.publisherId, price_model: 'tCPM' });
    }
    expect(new Set(events.map((event) => event.serve_id)).size).toBe(6);
    expect(await rollupOf(ctx, cpm.lineItemId)).toMatchObject({
      impressions: 2,
      clicks: 1,
      conversions: 1,
      spend_nanos: 2 * impressionCost,
      revenue_nanos: 42_500_000_000,
    });
  });

  it('charges a CPC line item per valid click and a CPA one per valid conversion', async () => {
    const cpc = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.5 });
    const cpa = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 7 });
    const time = new Date().toISOString();
    const line = (item: typeof cpc, type: string) => ({ type, time, line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential });
    const response = await importNdjson(ndjson([line(cpc, 'impression'), line(cpc, 'click'), line(cpa, 'click'), line(cpa, 'conversion')]));
    expect(response.json().data).toMatchObject({ accepted: 4, invalid: 0, rejected: 0 });
    expect(await rollupOf(ctx, cpc.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: 500_000_000 });
    expect(await rollupOf(ctx, cpa.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, spend_nanos: 7_000_000_000 });
  });

  it('keeps the bid an imported click was priced at: a conversion reported on it after the bid changed is billed at that', async () => {
    const cpa = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 7 });
    const time = new Date(Date.now() - 60_000).toISOString();
    const response = await importNdjson(ndjson([{ type: 'click', time, line_item_id: cpa.lineItemId, placement_id: cpa.placementId, ip: ADDRESSES.comcastResidential }]));
    expect(response.json().data).toMatchObject({ accepted: 1 });
    const [click] = await eventsOf(ctx, cpa.lineItemId);
    expect(click).toMatchObject({ type: 'click', price_model: 'CPA', price_nanos: 7_000_000_000 });
    expect((await asAdvertiser(ctx, cpa.key)('PUT', `/v1/advertiser/line-items/${cpa.lineItemId}/bids`, { bid_type: 'cpa', bid_value: 4 })).statusCode).toBe(200);
    const conversion = await ctx.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', headers: { 'x-api-key': cpa.key }, payload: { click_id: click!.click_id } });
    expect(conversion.statusCode).toBe(201);
    expect(conversion.json().data).toMatchObject({ cost_usd: 7, attributed: true });
  });

  it('does not call a line without a user agent a bot: the source recorded none', async () => {
    const item = await trackedLineItem(ctx);
    const response = await importNdjson(
      ndjson([{ type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential }]),
    );
    expect(response.json().data).toMatchObject({ accepted: 1, invalid: 0 });
  });

  it('needs the admin token', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/admin/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: '{}\n',
    });
    expect(response.statusCode).toBe(401);
  });

  it('answers 415 for a body that is not NDJSON', async () => {
    const response = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', payload: { type: 'impression' } });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('unsupported_media_type');
  });

  it('rejects a line whose time is in the future', async () => {
    const item = await trackedLineItem(ctx);
    const response = await importNdjson(
      ndjson([{ type: 'impression', time: new Date(Date.now() + 86_400_000).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential }]),
    );
    expect(response.json().data).toMatchObject({ accepted: 0, rejected: 1, errors: [{ line: 1, message: 'time: must not be in the future' }] });
  });

  it('rejects a time older than the 400 days events_v1 keeps, before 1970 too, and keeps one within them', async () => {
    const item = await trackedLineItem(ctx);
    const line = (time: string) => ({ type: 'impression', time, line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential });
    const day = 86_400_000;
    const times = ['0001-01-01T00:00:00Z', '1900-01-01T00:00:00Z', '1969-01-01T00:00:00Z', '2000-01-01T00:00:00Z', new Date(Date.now() - 401 * day).toISOString()];
    const kept = new Date(Date.now() - 399 * day).toISOString();
    const response = await importNdjson(ndjson([...times.map(line), line(kept)]));
    const message = 'time: older than the 400 days raw events are kept';
    expect(response.json().data).toEqual({ accepted: 1, invalid: 0, unbilled: 0, rejected: 5, already_imported: 0, errors: times.map((_, index) => ({ line: index + 1, message })) });
    expect((await eventsOf(ctx, item.lineItemId)).map((event) => event.type)).toEqual(['impression']);
    const eventsTable = readFileSync(new URL('../../clickhouse/0001_events.sql', import.meta.url), 'utf8');
    expect(eventsTable).toContain(`TTL toDateTime(event_time) + INTERVAL ${EVENT_RETENTION_DAYS} DAY`);
  });

  it('rejects a revenue_usd over 1,000,000 (what nano-USD in 64 bits keeps exactly, with room to sum) and keeps one at it', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 7 });
    const line = (revenue: number) => ({ type: 'conversion', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential, revenue_usd: revenue });
    const response = await importNdjson(ndjson([line(1e12), line(1e10), line(1_000_000.01), line(1_000_000)]));
    const message = 'revenue_usd: must be at most 1,000,000';
    expect(response.json().data).toEqual({ accepted: 1, already_imported: 0, invalid: 0, unbilled: 0, rejected: 3, errors: [1, 2, 3].map((number) => ({ line: number, message })) });
    expect((await eventsOf(ctx, item.lineItemId)).map((event) => event.revenue_nanos)).toEqual([1e15]);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 1, revenue_nanos: 1e15 });
  });

  it('rejects a line with a field it does not know', async () => {
    const item = await trackedLineItem(ctx);
    const line = { type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential };
    const response = await importNdjson(ndjson([{ ...line, colour: 'red' }]));
    // Worded as every other strict body words an unknown field (src/http/errors.ts zodDetails), not in zod's words.
    expect(response.json().data).toMatchObject({ accepted: 0, rejected: 1, errors: [{ line: 1, message: 'colour: unknown field' }] });
    expect(await eventsOf(ctx, item.lineItemId)).toEqual([]);
  });

  it('stores the country of the address, as for a live pixel', async () => {
    const item = await trackedLineItem(ctx);
    const line = { type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId };
    const response = await importNdjson(ndjson([{ ...line, ip: '81.2.69.142' }, { ...line, ip: ADDRESSES.comcastResidential }, { ...line, ip: '10.0.0.1' }]));
    expect(response.json().data).toMatchObject({ accepted: 2, invalid: 1 });
    const stored = await ctx.stores.ch.client.query({
      query: 'SELECT ip, country FROM events_v1 WHERE line_item_id = {id:UUID} ORDER BY ip',
      query_params: { id: item.lineItemId },
      format: 'JSONEachRow',
    });
    expect(await stored.json()).toEqual([
      { ip: '10.0.0.1', country: '' },
      { ip: '73.162.10.20', country: 'US' },
      { ip: '81.2.69.142', country: 'GB' },
    ]);
  });

  it('imports the lines as they arrive, in batches, before the body has ended', async () => {
    const item = await trackedLineItem(ctx);
    const line = JSON.stringify({ type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential });
    const acceptedSoFar = () => metricSample(ctx, 'adsvc_events_accepted_total');
    const before = await acceptedSoFar();
    const body = new PassThrough();
    const importing = ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson' }, payload: body });
    body.write(`${line}\n`.repeat(12_000));
    // The first batches are in the pipeline while the body is still open: it is never read whole.
    await eventually(async () => ((await acceptedSoFar()) - before >= 10_000 ? true : undefined), 'the first batches to be accepted');
    body.end(`${line}\n`.repeat(8_000));
    const response = await importing;
    expect(response.json().data).toMatchObject({ accepted: 20_000, rejected: 0 });
    expect((await eventsOf(ctx, item.lineItemId)).length).toBe(20_000);
    expect((await rollupOf(ctx, item.lineItemId)).impressions).toBe(20_000);
  });

  it('stops a streamed body at IMPORT_BODY_LIMIT_BYTES with 413 and says which lines are imported', async () => {
    const item = await trackedLineItem(ctx);
    const line = JSON.stringify({ type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential });
    // No Content-Length: the limit (64 MiB here) is found while reading. 12,000 lines are under it,
    // then one chunk takes the body over; they fill whole batches of 1000, all stored before it.
    const chunks = [`${line}\n`.repeat(6000), `${line}\n`.repeat(6000), 'x'.repeat(ctx.config.IMPORT_BODY_LIMIT_BYTES)];
    const response = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: Readable.from(chunks.map((chunk) => Buffer.from(chunk))),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'payload_too_large', message: expect.stringMatching(/lines 1 to 12000 are imported$/) });
    // The stored batches reach ClickHouse with the pipeline's next flush.
    expect(await waitForEvents(ctx, item.lineItemId, 12_000)).toHaveLength(12_000);
  });
});
