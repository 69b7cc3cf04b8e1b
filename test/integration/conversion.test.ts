import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SPOOL_COLUMNS, spoolLine } from '../../src/tracking/eventSpool.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { hashedEventId } from '../../src/tracking/hashedEventId.js';
import { createAdvertiser } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { startTestApp, testConfig, type TestContext } from '../helpers/testApp.js';
import {
  BOT_UA,
  clickedServe,
  clickUrl,
  eventsOf,
  fromAddress,
  pixelUrl,
  readerAddress,
  rollupOf,
  serveClaims,
  signedToken,
  trackedLineItem,
  waitForEvents,
  waitPastClickDelay,
} from '../helpers/trackingFixtures.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});

afterAll(async () => {
  await ctx.close();
});

const CPC_BID = { bid_type: 'cpc', bid_value: 0.4 };

function postConversion(key: string, payload: object) {
  return ctx.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', headers: { 'x-api-key': key }, payload });
}

describe('POST /v1/advertiser/conversions', () => {
  it('attributes a conversion to a valid click (201), converts its value to USD revenue, and reports it', async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000);
    const response = await postConversion(item.key, { click_id: clickId, value: 20, currency: 'eur', conversion_id: 'order-1' });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(data).toMatchObject({
      click_id: clickId,
      campaign_id: item.campaignId,
      line_item_id: item.lineItemId,
      revenue_usd: 20.7,
      cost_usd: 0,
      attributed: true,
      reason: null,
      unbilled_reason: null,
    });
    const events = await waitForEvents(ctx, item.lineItemId, 3);
    expect(events.find((event) => event.type === 'conversion')).toMatchObject({
      event_id: data.id,
      source: 'conversion_api',
      click_id: clickId,
      placement_id: item.placementId,
      revenue_nanos: 20_700_000_000,
      ivt: '',
    });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, revenue_nanos: 20_700_000_000 });
  });

  it("takes the click's country (the reader's), not the country of the advertiser's server that reports it, and reports it there", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 3 });
    const [spooled, written] = [await clickedServe(ctx, item, 'CPA', 3_000_000_000), await clickedServe(ctx, item, 'CPA', 3_000_000_000)];
    // Reported from a cloud server in another country (AWS, Ireland): its address stays on the row for audit only.
    const fromServer = (payload: object) =>
      ctx.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', remoteAddress: '127.0.0.1', headers: { 'x-api-key': item.key, 'x-forwarded-for': '52.95.110.1' }, payload });
    expect((await fromServer({ click_id: spooled })).statusCode).toBe(201);
    expect((await fromServer({ click_id: written, conversion_id: 'order-1' })).statusCode).toBe(201);

    const events = await waitForEvents(ctx, item.lineItemId, 6);
    const clicks = events.filter((event) => event.type === 'click');
    expect(clicks.map((event) => event.country)).toEqual(['US', 'US']);
    expect(events.filter((event) => event.type === 'conversion').map((event) => [event.country, event.ip, event.ip_class])).toEqual([
      ['US', '52.95.110.1', 'datacenter'],
      ['US', '52.95.110.1', 'datacenter'],
    ]);
    const report = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/campaigns', query: { breakdown: 'country' }, headers: { 'x-api-key': item.key } });
    expect(report.json().data).toEqual([expect.objectContaining({ country: 'US', clicks: 2, conversions: 2, spend_usd: 6 })]);
  });

  it('charges a CPA line item its bid per attributed conversion, and nothing for the click', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 12 });
    const clickId = await clickedServe(ctx, item, 'CPA', 12_000_000_000);
    const response = await postConversion(item.key, { click_id: clickId });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ revenue_usd: 0, cost_usd: 12, attributed: true });
    await waitForEvents(ctx, item.lineItemId, 3);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, spend_nanos: 12_000_000_000 });
  });

  it('bills a conversion at the CPA price signed into its click: a bid lowered or raised after the click does not change it', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 12 });
    const [before, cheaper, dearer] = [await clickedServe(ctx, item, 'CPA', 12_000_000_000), await clickedServe(ctx, item, 'CPA', 12_000_000_000), await clickedServe(ctx, item, 'CPA', 12_000_000_000)];
    const putBid = (bid_value: number) => asAdvertiser(ctx, item.key)('PUT', `/v1/advertiser/line-items/${item.lineItemId}/bids`, { bid_type: 'cpa', bid_value });
    const conversionOf = async (clickId: string) => {
      const response = await postConversion(item.key, { click_id: clickId, conversion_id: 'order-1' });
      expect(response.statusCode).toBe(201);
      return response.json().data;
    };

    expect(await conversionOf(before)).toMatchObject({ cost_usd: 12, attributed: true });
    expect((await putBid(5)).statusCode).toBe(200);
    expect(await conversionOf(cheaper)).toMatchObject({ cost_usd: 12, attributed: true });
    expect((await putBid(20)).statusCode).toBe(200);
    expect(await conversionOf(dearer)).toMatchObject({ cost_usd: 12, attributed: true });

    const events = await waitForEvents(ctx, item.lineItemId, 9);
    const conversions = events.filter((event) => event.type === 'conversion');
    expect(conversions.map((event) => [event.cost_nanos, event.price_nanos])).toEqual([0, 1, 2].map(() => [12_000_000_000, 12_000_000_000]));
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 3, conversions: 3, spend_nanos: 36_000_000_000 });
  });

  it('bills the signed CPA price even once the line item bids another way', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 9 });
    const clickId = await clickedServe(ctx, item, 'CPA', 9_000_000_000);
    expect((await asAdvertiser(ctx, item.key)('PUT', `/v1/advertiser/line-items/${item.lineItemId}/bids`, CPC_BID)).statusCode).toBe(200);
    const response = await postConversion(item.key, { click_id: clickId });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ cost_usd: 9, attributed: true });
  });

  it('bills a click stored before its price was kept (clickhouse/0012) at the current CPA bid', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 12 });
    const clickId = randomUUID();
    // The click as the release before the column spooled it (no price), replayed by a pipeline on
    // the same stores, as at the first start after the upgrade: its price takes the default, 0.
    const click = sampleEvent({
      event_id: clickId,
      click_id: clickId,
      event_time: Date.now() - 60_000,
      type: 'click',
      source: 'click',
      campaign_id: item.campaignId,
      line_item_id: item.lineItemId,
      creative_id: item.creativeId,
      price_model: 'CPA',
      cost_nanos: 0,
    });
    const oldLine = JSON.stringify((JSON.parse(spoolLine(click)) as unknown[]).slice(0, SPOOL_COLUMNS.indexOf('price_nanos'))) + '\n';
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'old-click-'));
    mkdirSync(path.join(dataDir, 'spool'));
    writeFileSync(path.join(dataDir, 'spool', '000000000000009-999999999999.jsonl'), oldLine);
    const replay = await createClickHouseEventPipeline({ config: testConfig(dataDir), ch: ctx.stores.ch, log: pino({ level: 'silent' }) });
    await replay.flush();
    await replay.close();
    expect((await asAdvertiser(ctx, item.key)('PUT', `/v1/advertiser/line-items/${item.lineItemId}/bids`, { bid_type: 'cpa', bid_value: 5 })).statusCode).toBe(200);
    const response = await postConversion(item.key, { click_id: clickId });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ cost_usd: 5, attributed: true });
    expect(((await waitForEvents(ctx, item.lineItemId, 2)).find((event) => event.type === 'click'))?.price_nanos).toBe(0);
  });

  it('bills a conversion only when the serve that led to it was CPA: a CPC click whose bid later turns CPA is not billed twice', async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000);
    const switched = await asAdvertiser(ctx, item.key)('PUT', `/v1/advertiser/line-items/${item.lineItemId}/bids`, { bid_type: 'cpa', bid_value: 7 });
    expect(switched.statusCode).toBe(200);
    const response = await postConversion(item.key, { click_id: clickId, value: 3 });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ cost_usd: 0, revenue_usd: 3, attributed: true });
    const events = await waitForEvents(ctx, item.lineItemId, 3);
    expect(events.find((event) => event.type === 'conversion')).toMatchObject({ price_model: 'CPC', cost_nanos: 0 });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, spend_nanos: 400_000_000 });
  });

  it('attributes a conversion of a click of a campaign deleted since to that campaign, at cost 0 (unbilled campaign_deleted), and reports it', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 12 });
    const clickId = await clickedServe(ctx, item, 'CPA', 12_000_000_000);
    const deleted = await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${item.campaignId}`, headers: { 'x-api-key': item.key } });
    expect(deleted.statusCode).toBe(204);
    const stranger = await createAdvertiser(ctx);
    expect((await postConversion(stranger.key, { click_id: clickId, conversion_id: 'order-1' })).statusCode).toBe(404);

    const response = await postConversion(item.key, { click_id: clickId, value: 3, conversion_id: 'order-1' });
    expect(response.statusCode).toBe(201);
    // The answer says why it cost 0, as the audit export does, and so does the answer to a retry (read back from ClickHouse).
    expect(response.json().data).toMatchObject({ campaign_id: item.campaignId, line_item_id: item.lineItemId, revenue_usd: 3, cost_usd: 0, attributed: true, reason: null, unbilled_reason: 'campaign_deleted' });
    const repeat = await postConversion(item.key, { click_id: clickId, value: 3, conversion_id: 'order-1' });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().data).toEqual(response.json().data);
    const conversion = (await waitForEvents(ctx, item.lineItemId, 3)).find((event) => event.type === 'conversion');
    expect(conversion).toMatchObject({ price_model: 'CPA', cost_nanos: 0, price_nanos: 12_000_000_000, ivt: '' });
    const exported = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/reporting/events?campaign_id=${item.campaignId}`, headers: { 'x-api-key': item.key } });
    expect(exported.statusCode).toBe(200);
    const exportedConversion = exported.body.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)).find((event) => event.type === 'conversion');
    expect(exportedConversion).toMatchObject({ cost_usd: 0, unbilled_reason: 'campaign_deleted' });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, spend_nanos: 0, revenue_nanos: 3_000_000_000 });
    const report = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/reporting/campaigns?campaign_ids=${item.campaignId}`, headers: { 'x-api-key': item.key } });
    expect(report.json().data).toMatchObject([{ campaign_id: item.campaignId, clicks: 1, conversions: 1, spend_usd: 0, revenue_usd: 3 }]);
  });

  it('counts the same conversion_id for the same click once: a repeat answers 200 with the first conversion', async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000);
    const first = await postConversion(item.key, { click_id: clickId, value: 5, conversion_id: 'order-7' });
    const repeat = await postConversion(item.key, { click_id: clickId, value: 999, conversion_id: 'order-7' });
    const other = await postConversion(item.key, { click_id: clickId, value: 1, conversion_id: 'order-8' });
    expect(first.statusCode).toBe(201);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().data).toEqual(first.json().data);
    expect(other.statusCode).toBe(201);
    await waitForEvents(ctx, item.lineItemId, 4);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 2, revenue_nanos: 6_000_000_000 });
  });

  it('counts the same conversion_id once whatever the case of the click id: a retry with the id upper-cased answers 200 with the first conversion', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 2 });
    const clickId = await clickedServe(ctx, item, 'CPA', 2_000_000_000);
    const first = await postConversion(item.key, { click_id: clickId, conversion_id: 'order-9' });
    const upperCased = await postConversion(item.key, { click_id: clickId.toUpperCase(), conversion_id: 'order-9' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data.cost_usd).toBe(2);
    expect(upperCased.statusCode).toBe(200);
    expect(upperCased.json().data).toEqual(first.json().data);
    // Another order after them: once it is stored, everything answered before it is stored too.
    const later = await postConversion(item.key, { click_id: clickId, conversion_id: 'order-10' });
    expect(later.statusCode).toBe(201);
    const laterId = later.json().data.id;
    const stored = await eventually(async () => {
      const events = await eventsOf(ctx, item.lineItemId);
      return events.some((event) => event.event_id === laterId) ? events : undefined;
    }, 'the later conversion stored');
    expect(stored.filter((event) => event.type === 'conversion').length).toBe(2);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 2, spend_nanos: 4_000_000_000 });
  });

  it('finds a conversion a build before the click id was lower-cased stored under the upper-cased id: a retry after the upgrade, in either case, answers 200 with it, not billed again', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 2 });
    const clickId = await clickedServe(ctx, item, 'CPA', 2_000_000_000);
    const click = (await eventsOf(ctx, item.lineItemId)).find((event) => event.type === 'click')!;
    // What such a build wrote for {"click_id": "<upper-case>", "conversion_id": "order-7"}: the
    // conversion's event id the hash of the click id's text as sent, written at once under its token.
    const oldId = hashedEventId(`${clickId.toUpperCase()}\norder-7`);
    const old = sampleEvent({
      event_id: oldId,
      type: 'conversion',
      source: 'conversion_api',
      serve_id: click.serve_id,
      campaign_id: item.campaignId,
      line_item_id: item.lineItemId,
      creative_id: item.creativeId,
      placement_id: item.placementId,
      publisher_id: item.publisherId,
      price_model: 'CPA',
      cost_nanos: 2_000_000_000,
      click_id: clickId,
      price_nanos: 2_000_000_000,
    });
    const before = await createClickHouseEventPipeline({ config: testConfig(mkdtempSync(path.join(inject('testRoot'), 'before-'))), ch: ctx.stores.ch, log: pino({ level: 'silent' }) });
    await before.writeNow([old], `conversion:${oldId}`);
    await before.close();

    for (const sent of [clickId.toUpperCase(), clickId]) {
      const retry = await postConversion(item.key, { click_id: sent, conversion_id: 'order-7' });
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json().data).toMatchObject({ id: oldId, click_id: clickId, cost_usd: 2, attributed: true });
    }
    // Another order after them: once it is stored, everything answered before it is stored too.
    const later = await postConversion(item.key, { click_id: clickId.toUpperCase(), conversion_id: 'order-8' });
    expect(later.statusCode).toBe(201);
    const laterId = later.json().data.id;
    expect(laterId).toBe(hashedEventId(`${clickId}\norder-8`));
    const stored = await eventually(async () => {
      const events = await eventsOf(ctx, item.lineItemId);
      return events.some((event) => event.event_id === laterId) ? events : undefined;
    }, 'the later conversion stored');
    expect(stored.filter((event) => event.type === 'conversion').map((event) => event.event_id).sort()).toEqual([oldId, laterId].sort());
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 2, spend_nanos: 4_000_000_000 });
  });

  it('stores a conversion of an invalid click unattributed (202, invalid_click), and does not report it', async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000, { userAgent: BOT_UA });
    const response = await postConversion(item.key, { click_id: clickId, value: 10 });
    expect(response.statusCode).toBe(202);
    expect(response.json().data).toMatchObject({ attributed: false, reason: 'invalid_click', cost_usd: 0 });
    const events = await waitForEvents(ctx, item.lineItemId, 3);
    expect(events.find((event) => event.type === 'conversion')).toMatchObject({ ivt: 'invalid_click' });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 0, revenue_nanos: 0 });
  });

  it("attributes a conversion quoting a serve's second click (a duplicate) to the serve's billed click: revenue reported, one conversion_id billed once", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 3 });
    const token = signedToken(ctx, serveClaims(item, 'CPA', 3_000_000_000));
    const reader = readerAddress();
    await fromAddress(ctx, pixelUrl(token), reader);
    await waitPastClickDelay(Date.now());
    const clickIdOf = async () => new URL((await fromAddress(ctx, clickUrl(token), reader)).headers.location as string).searchParams.get('adsvc_click_id')!;
    const first = await clickIdOf();
    const second = await clickIdOf();
    const events = await waitForEvents(ctx, item.lineItemId, 3);
    expect(events.find((event) => event.event_id === second)).toMatchObject({ type: 'click', ivt: 'duplicate' });

    const response = await postConversion(item.key, { click_id: second, value: 40, conversion_id: 'order-7' });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ click_id: first, revenue_usd: 40, cost_usd: 3, attributed: true, reason: null });
    // The same order reported with the first click is the same conversion.
    const again = await postConversion(item.key, { click_id: first, value: 40, conversion_id: 'order-7' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(response.json().data);
    await waitForEvents(ctx, item.lineItemId, 4);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, revenue_nanos: 40_000_000_000, spend_nanos: 3_000_000_000 });
  });

  it('stores a conversion outside [click, click + ATTRIBUTION_WINDOW_DAYS] unattributed (202, outside_window)', async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000);
    // Lower-case t and z: RFC 3339 (5.6) allows them, as openapi.yaml's date-time does.
    const beforeClick = new Date(Date.now() - 3_600_000).toISOString().replace('T', 't').replace('Z', 'z');
    const response = await postConversion(item.key, { click_id: clickId, value: 10, occurred_at: beforeClick });
    expect(response.statusCode).toBe(202);
    expect(response.json().data).toMatchObject({ attributed: false, reason: 'outside_window' });
  });

  it('refuses (422) a value over 1,000,000 USD once converted, or an occurred_at older than events are kept, and stores none of them', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 7 });
    const clickId = await clickedServe(ctx, item, 'CPA', 7_000_000_000);
    const refused = [
      { value: 1e12 },
      { value: 1e10, conversion_id: 'order-big' },
      // 990,000 EUR is 1,024,650 USD: the ceiling is checked after conversion.
      { value: 990_000, currency: 'EUR' },
      { value: 1, occurred_at: '1900-01-01T00:00:00Z' },
      { value: 1, occurred_at: new Date(Date.now() - 401 * 86_400_000).toISOString(), conversion_id: 'order-old' },
    ];
    for (const payload of refused) {
      const response = await postConversion(item.key, { click_id: clickId, ...payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      expect(response.json().error.code).toBe('validation_error');
      expect(response.json().error.details[0].path).toBe('occurred_at' in payload ? 'occurred_at' : 'value');
    }
    const ceiling = await postConversion(item.key, { click_id: clickId, value: 1_000_000 });
    expect(ceiling.statusCode).toBe(201);
    expect(ceiling.json().data).toMatchObject({ revenue_usd: 1_000_000, cost_usd: 7 });
    const events = await waitForEvents(ctx, item.lineItemId, 3);
    expect(events.filter((event) => event.type === 'conversion').map((event) => event.revenue_nanos)).toEqual([1e15]);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ conversions: 1, revenue_nanos: 1e15, spend_nanos: 7_000_000_000 });
  });

  it("answers 404 not_found for another organization's click and for an unknown one", async () => {
    const item = await trackedLineItem(ctx, CPC_BID);
    const clickId = await clickedServe(ctx, item, 'CPC', 400_000_000);
    const stranger = await createAdvertiser(ctx);
    const foreign = await postConversion(stranger.key, { click_id: clickId, conversion_id: 'x' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');
    const unknown = await postConversion(item.key, { click_id: randomUUID() });
    expect(unknown.statusCode).toBe(404);
    // A conversion sent as the landing page loads can precede the click's storing: the message says to retry.
    expect(unknown.json().error.message).toBe('click not found (or not yet: a click can be quoted about a second after it, once stored; retry a 404 that follows the click closely)');
    expect(foreign.json().error.message).toBe(unknown.json().error.message);
  });

  it('needs an API key with the campaigns permission', async () => {
    const missing = await ctx.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', payload: { click_id: randomUUID() } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('auth_missing');
    const reportingOnly = await createAdvertiser(ctx, ['reporting']);
    const forbidden = await postConversion(reportingOnly.key, { click_id: randomUUID() });
    expect(forbidden.statusCode).toBe(403);
  });

  it('answers 422 listing every bad field, and for a conversion in the future', async () => {
    const { key } = await createAdvertiser(ctx);
    const bad = await postConversion(key, { click_id: 'nope', value: -1, currency: 'XXQ' });
    expect(bad.statusCode).toBe(422);
    expect(detailPaths(bad).sort()).toEqual(['click_id', 'currency', 'value']);
    const future = await postConversion(key, { click_id: randomUUID(), occurred_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(future.statusCode).toBe(422);
    expect(future.json().error.details[0].path).toBe('occurred_at');
  });
});
