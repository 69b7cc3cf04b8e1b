import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { billingLock } from '../../src/tracking/billingLock.js';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { changeCampaign, claimsOf, eventuallyServed, firePixel, insertEvents, keywordWithFallback, servableLineItem, serve, servedLineItem, uniqueWord, type Advertiser, type LineItemSpec, type ServeBody } from '../helpers/servingFixtures.js';
import { BROWSER_UA, readerAddress, waitPastClickDelay } from '../helpers/trackingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

/**
 * The attack these hold off: serving checks spend and frequency counts, which grow only as pixels
 * and clicks arrive, so a caller requests many serves while budget and cap remain, then fires every
 * link at once. Each event is judged again when it arrives (src/tracking/billingCeiling.ts). One
 * instance holds its own outstanding serves against the budget, daily as paced and lifetime (at
 * their expected cost), and the cap, so serving ahead past them takes several instances, a restart, clicks far above the estimated
 * CTR, or serves older than 10 minutes: the tests serve ahead the first two ways.
 */

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

// The test's requests come from 127.0.0.1: count them like a browser's. All its tCPM pixels are of
// one publisher from that one address, which impression velocity (per publisher and network) would
// refuse past 30 in 10 s: not what these tests are about.
const env = { IVT_ALLOW_PRIVATE_IPS: 'true', IMPRESSION_VELOCITY_10S: '0', IMPRESSION_VELOCITY_10MIN: '0' };
const USD = 1e9;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher(env));
});
afterAll(async () => {
  await ctx.close();
});

/** A certified placement, a cheap fallback line item on a fresh keyword, and the line item under test on it. */
async function setup(spec: LineItemSpec) {
  const placement = await createCertifiedPlacement(ctx, publisher.id);
  const { word, fallback } = await keywordWithFallback(ctx, advertiser);
  const tested = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } }, ...spec });
  const as = (user?: string) => ({ placement_id: placement, context: { query: word, response: '' }, ...(user ? { user: { id: user } } : {}) });
  await eventuallyServed(ctx, publisher.token, as('warm-up'), tested.lineItemId);
  return { placement, tested, fallback, as };
}

/** Serves `count` times on `on` and keeps the answers that served `lineItemId`. */
async function serveAhead(on: TestContext, body: object, lineItemId: string, count: number): Promise<LightMyRequestResponse[]> {
  const served: LightMyRequestResponse[] = [];
  for (let i = 0; i < count; i++) {
    const response = await serve(on, publisher.token, body as never);
    if (servedLineItem(on, response) === lineItemId) served.push(response);
  }
  return served;
}

/**
 * Serves `count` ads of the line item ahead of their pixels the one way left once each serve holds
 * its expected cost against the daily budget until its event comes (SpendPacing.served): on several
 * instances, each of which knows only its own outstanding serves. Serves on ctx until it stops
 * serving the line item, then on more instances on the same stores (closed after), at most `instances`.
 */
async function serveAheadOnInstances(body: object, lineItemId: string, count: number, instances: number): Promise<LightMyRequestResponse[]> {
  const served: LightMyRequestResponse[] = [];
  const others: TestContext[] = [];
  try {
    let on = ctx;
    while (served.length < count) {
      const response = await serve(on, publisher.token, body as never);
      if (servedLineItem(on, response) === lineItemId) served.push(response);
      else {
        expect(others.length + 1).toBeLessThan(instances);
        others.push((on = await startAnotherInstance(ctx, env)));
      }
    }
  } finally {
    for (const other of others) await other.close();
  }
  return served;
}

/** Loads every pixel at once, as a page of ads would (many in one event-loop turn), each answered 200. */
async function firePixels(on: TestContext, served: LightMyRequestResponse[]): Promise<void> {
  await Promise.all(served.map((response) => firePixel(on, response)));
}

/** Follows every click link at once, each from a reader of its own (one visitor's pace is click_velocity's business, not this file's). */
async function followClicks(on: TestContext, served: LightMyRequestResponse[]): Promise<void> {
  const answers = await Promise.all(
    served.map((response) =>
      on.app.inject({ method: 'GET', url: new URL(response.json().ad.tracking.click_url).pathname, headers: { 'user-agent': BROWSER_UA }, remoteAddress: readerAddress() }),
    ),
  );
  for (const answer of answers) expect(answer.statusCode).toBe(302);
}

interface StoredRow {
  type: string;
  user_key: string;
  ivt: string;
  unbilled: string;
  cost_nanos: number;
}

async function storedEvents(lineItemId: string, count: number): Promise<StoredRow[]> {
  return eventually(async () => {
    const result = await ctx.stores.ch.client.query({
      query: `SELECT type, user_key, ivt, unbilled, toFloat64(cost_nanos) AS cost_nanos FROM events_v1 WHERE line_item_id = {id:UUID} ORDER BY event_time`,
      query_params: { id: lineItemId },
      format: 'JSONEachRow',
    });
    const rows = await result.json<StoredRow>();
    return rows.length >= count ? rows : undefined;
  }, `${count} events in ClickHouse`);
}

/** Every rollup that bills or reports spend, and the raw events they come from, for one line item. */
async function spendEverywhere(lineItemId: string, campaignId: string, placementId: string) {
  const one = async (query: string) => {
    const result = await ctx.stores.ch.client.query({ query, query_params: { id: lineItemId, campaign: campaignId, placement: placementId }, format: 'JSONEachRow' });
    const [row] = await result.json<{ spend: number; impressions?: number; clicks?: number }>();
    return row!;
  };
  return {
    raw: await one(
      `SELECT toFloat64(sum(cost_nanos)) AS spend, toFloat64(countIf(type = 'impression')) AS impressions, toFloat64(countIf(type = 'click')) AS clicks
       FROM events_v1 WHERE line_item_id = {id:UUID} AND ivt = ''`,
    ),
    daily: await one(
      `SELECT toFloat64(sum(spend_nanos)) AS spend, toFloat64(sum(impressions)) AS impressions, toFloat64(sum(clicks)) AS clicks
       FROM daily_stats_v1 WHERE line_item_id = {id:UUID}`,
    ),
    campaign: await one(`SELECT toFloat64(sum(spend_nanos)) AS spend FROM campaign_daily_stats_v1 WHERE campaign_id = {campaign:UUID}`),
    lifetime: await one(`SELECT toFloat64(sum(spend_nanos)) AS spend FROM line_item_spend_v1 WHERE line_item_id = {id:UUID}`),
    // What the publisher's earnings are computed from.
    placement: await one(`SELECT toFloat64(sum(spend_nanos)) AS spend FROM placement_daily_stats_v1 WHERE placement_id = {placement:String}`),
  };
}

type Capping = Awaited<ReturnType<typeof setup>>;

/** Mallory served the cap by this instance and by another (4 serves of a cap of 2), none fired yet. */
async function serveTheCapHereAndElsewhere({ tested, as }: Capping): Promise<LightMyRequestResponse[]> {
  const other = await startAnotherInstance(ctx, env);
  const served: LightMyRequestResponse[] = [];
  try {
    await eventuallyServed(other, publisher.token, as('warm-up'), tested.lineItemId);
    for (const on of [ctx, other]) served.push(...(await serveAhead(on, as('mallory'), tested.lineItemId, 4)));
  } finally {
    await other.close();
  }
  expect(served).toHaveLength(4);
  return served;
}

describe('billing ceilings: budgets', () => {
  it('bills impressions served ahead only up to twice the daily budget; the rest are stored valid, unbilled, at cost 0', async () => {
    // 5 USD a day at 1 USD an impression (tCPM 1,000), asap: serving stops at 5 USD of spend, counted
    // or held by serves waiting for their pixels, but each of three instances holds only its own: 14
    // serves (the warm-up's hold leaves 4 on the first) go to the line item.
    const { placement, tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 14, 3);
    await firePixels(ctx, served);

    const events = await storedEvents(tested.lineItemId, 14);
    const billed = events.filter((event) => event.unbilled === '');
    const billedSpend = billed.reduce((sum, event) => sum + event.cost_nanos, 0);
    // At most the ceiling; a little less when a sync counted an event twice (pacing errs on spending less).
    expect(billedSpend).toBeLessThanOrEqual(10 * USD);
    expect(billedSpend).toBeGreaterThanOrEqual(8 * USD);
    expect(billedSpend).toBe(billed.length * USD);
    const unbilled = events.filter((event) => event.unbilled !== '');
    expect(unbilled).toHaveLength(14 - billed.length);
    expect(unbilled.every((event) => event.unbilled === 'over_daily_budget' && event.ivt === '' && event.cost_nanos === 0)).toBe(true);

    // Real impressions, counted as such at cost 0; every rollup equals the raw events, the publisher's included.
    const spend = await eventually(async () => {
      const figures = await spendEverywhere(tested.lineItemId, tested.campaignId, placement);
      return figures.daily.impressions === 14 ? figures : undefined;
    }, 'the rollups');
    expect(spend.raw).toEqual({ spend: billedSpend, impressions: 14, clicks: 0 });
    expect(spend.daily).toEqual(spend.raw);
    for (const rollup of [spend.campaign, spend.lifetime, spend.placement]) expect(rollup.spend).toBe(billedSpend);

    const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(`adsvc_events_unbilled_total{reason="over_daily_budget"} ${unbilled.length}\n`);
  });

  it('bills clicks served ahead only up to twice the daily budget', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpc', bid_value: 1 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAhead(ctx, as(), tested.lineItemId, 20);
    expect(served).toHaveLength(20);
    await firePixels(ctx, served);
    await waitPastClickDelay(Date.now());
    await followClicks(ctx, served);

    const clicks = (await storedEvents(tested.lineItemId, 40)).filter((event) => event.type === 'click');
    expect(clicks).toHaveLength(20);
    expect(clicks.every((event) => event.ivt === '')).toBe(true);
    const billed = clicks.filter((event) => event.unbilled === '');
    expect(clicks.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(billed.length * USD);
    expect(billed.length).toBeLessThanOrEqual(10);
    expect(billed.length).toBeGreaterThanOrEqual(8);
    expect(clicks.filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(20 - billed.length);
  });

  it('never bills past the lifetime budget', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 1000, currency: 'USD', lifetime: 3, pacing: 'asap' } });
    // Each instance holds its serves against the lifetime budget too: 8 ahead takes three.
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 8, 4);
    await firePixels(ctx, served);

    const events = await storedEvents(tested.lineItemId, 8);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(3 * USD);
    expect(events.filter((event) => event.unbilled === 'over_lifetime_budget')).toHaveLength(5);
  });

  // Earlier days of this month are needed: on the 1st (UTC) there are none.
  it.skipIf(new Date().getUTCDate() === 1)('bills a UTC month only up to 30.4 daily budgets, and stops serving the line item whose month is spent', async () => {
    const { placement, tested, fallback, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAhead(ctx, as(), tested.lineItemId, 4);
    expect(served).toHaveLength(4);
    // 150.5 of the month's 152 USD (30.4 x 5) spent on the 1st, by this or another instance; nothing today.
    const now = new Date();
    const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 1);
    // A witness spent through ClickHouse beside it: once it stops being served, a pacing sync has read both.
    const word = uniqueWord();
    // asap: paced even, right after 00:00 UTC a day's 20 USD releases 0.83 USD, which two serves' holds
    // (0.5 USD each) fill, and the witness stopped being served before any sync (red at 00:05 UTC).
    const witness = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 50 }, budget: { daily: 20, currency: 'USD', pacing: 'asap' }, targeting: { keywords: { include: [word] } } });
    const witnessBody = { placement_id: placement, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, witnessBody, witness.lineItemId);
    await insertEvents(ctx, [
      sampleEvent({ campaign_id: tested.campaignId, line_item_id: tested.lineItemId, placement_id: placement, publisher_id: publisher.id, cost_nanos: 150.5 * USD, event_time: firstOfMonth }),
      sampleEvent({ campaign_id: witness.campaignId, line_item_id: witness.lineItemId, placement_id: placement, publisher_id: publisher.id, type: 'click', cost_nanos: 50 * USD }),
    ]);
    await eventuallyServed(ctx, publisher.token, witnessBody, witness.lineItemId, false);

    await firePixels(ctx, served);
    const events = (await storedEvents(tested.lineItemId, 5)).filter((event) => event.cost_nanos !== 150.5 * USD);
    // 1 USD of the 4 fits under the month's ceiling, though today's spend stays far below twice the daily budget.
    expect(events.filter((event) => event.unbilled === '').map((event) => event.cost_nanos)).toEqual([USD]);
    expect(events.filter((event) => event.unbilled === 'over_monthly_budget' && event.ivt === '' && event.cost_nanos === 0)).toHaveLength(3);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as()))).toBe(fallback.lineItemId);
    // Active, stopped until the next month (or a higher daily budget): its response says which ceiling.
    const shown = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/line-items/${tested.lineItemId}`, headers: { 'x-api-key': advertiser.key } });
    expect(shown.json().data).toMatchObject({ status: 'active', delivery_stopped_by: 'monthly_budget' });
  });

  for (const leave of ['pause', 'delete'] as const) {
    it(`keeps the lifetime ceiling for ads served before their campaign's ${leave} and fired after it`, async () => {
      const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 100, currency: 'USD', lifetime: 3, pacing: 'asap' } });
      const served = await serveAheadOnInstances(as(), tested.lineItemId, 8, 4);
      expect(served).toHaveLength(8);
      if (leave === 'pause') await changeCampaign(ctx, advertiser, tested.campaignId, { status: 'paused' });
      else expect((await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${tested.campaignId}`, headers: { 'x-api-key': advertiser.key } })).statusCode).toBe(204);
      await eventuallyServed(ctx, publisher.token, as(), tested.lineItemId, false);
      await firePixels(ctx, served);

      const events = await storedEvents(tested.lineItemId, 8);
      expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(3 * USD);
      expect(events.filter((event) => event.unbilled === 'over_lifetime_budget')).toHaveLength(5);
    });
  }

  /** The ways a line item leaves the index while links served with it live. */
  const leavings = {
    pause: "the campaign's pause",
    delete: "the campaign's delete",
    // Still active, no longer servable: no route removes a creative, an operator's SQL can.
    creative: "the removal of the line item's last creative",
  } as const;

  /** Takes the line item out of the index (on ctx), and waits until ctx no longer serves it. */
  async function leave(how: keyof typeof leavings, tested: { campaignId: string; lineItemId: string }, body: ServeBody) {
    if (how === 'pause') await changeCampaign(ctx, advertiser, tested.campaignId, { status: 'paused' });
    else if (how === 'delete') expect((await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${tested.campaignId}`, headers: { 'x-api-key': advertiser.key } })).statusCode).toBe(204);
    else await ctx.stores.db.query('DELETE FROM creatives WHERE line_item_id = $1', [tested.lineItemId]);
    await eventuallyServed(ctx, publisher.token, body, tested.lineItemId, false);
  }

  for (const how of ['pause', 'delete', 'creative'] as const) {
    it(`keeps the lifetime ceiling after a restart for ads served before ${leavings[how]}: the process loads what left the index`, async () => {
      const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 100, currency: 'USD', lifetime: 3, pacing: 'asap' } });
      const served = await serveAheadOnInstances(as(), tested.lineItemId, 8, 4);
      expect(served).toHaveLength(8);
      await firePixels(ctx, served.slice(0, 2));
      await storedEvents(tested.lineItemId, 2);
      await leave(how, tested, as());

      // The new process never had the line item in its index: its budgets come from Postgres (or the
      // catalog the index leaves it out of), its spend from ClickHouse.
      await ctx.close();
      ctx = await startTestApp(env);
      await firePixels(ctx, served.slice(2));
      const events = await storedEvents(tested.lineItemId, 8);
      expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(3 * USD);
      expect(events.filter((event) => event.unbilled === 'over_lifetime_budget')).toHaveLength(5);
    });

    it(`keeps the lifetime ceiling on an instance started after ${leavings[how]}`, async () => {
      const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 100, currency: 'USD', lifetime: 3, pacing: 'asap' } });
      const served = await serveAheadOnInstances(as(), tested.lineItemId, 8, 4);
      expect(served).toHaveLength(8);
      await leave(how, tested, as());
      const other = await startAnotherInstance(ctx, env);
      try {
        await firePixels(other, served);
      } finally {
        await other.close();
      }
      const events = await storedEvents(tested.lineItemId, 8);
      expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(3 * USD);
      expect(events.filter((event) => event.unbilled === 'over_lifetime_budget')).toHaveLength(5);
    });
  }

  it('bills an honest impression within the budget as signed', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', lifetime: 100, pacing: 'asap' } });
    const [served] = await serveAhead(ctx, as(), tested.lineItemId, 1);
    await firePixel(ctx, served!);
    expect(await storedEvents(tested.lineItemId, 1)).toEqual([{ type: 'impression', user_key: '', ivt: '', unbilled: '', cost_nanos: 1 * USD }]);
  });

  it('keeps the ceiling across a restart between the serves and their pixels: the spend is read from ClickHouse', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 14, 3);
    await firePixels(ctx, served.slice(0, 7));
    await storedEvents(tested.lineItemId, 7);

    await ctx.close();
    ctx = await startTestApp(env);
    await firePixels(ctx, served.slice(7));
    const events = await storedEvents(tested.lineItemId, 14);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(10 * USD);
    expect(events.slice(7).filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(4);
  });
});

describe('billing ceilings: conversions the counters cannot judge', () => {
  const DAY_MS = 86_400_000;
  const CPA_PRICE = 4 * USD;

  /** A CPA line item (4 USD, 10 USD a day unless told) and 7 valid clicks of it, the first at `firstMs`, a minute apart. */
  async function clicksAt(firstMs: number, budget: LineItemSpec['budget'] = { daily: 10, currency: 'USD', pacing: 'asap' }) {
    const { placement, tested } = await setup({ bids: { bid_type: 'cpa', bid_value: 4 }, budget });
    const { rows } = await ctx.stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [tested.lineItemId]);
    const clicks = Array.from({ length: 7 }, (_, i) => {
      const id = randomUUID();
      return sampleEvent({
        ...{ event_id: id, click_id: id, type: 'click', source: 'click', event_time: firstMs + i * 60_000 },
        ...{ campaign_id: tested.campaignId, line_item_id: tested.lineItemId, creative_id: rows[0]!.id, placement_id: placement, publisher_id: publisher.id },
        ...{ price_model: 'CPA', cost_nanos: 0, price_nanos: CPA_PRICE },
      });
    });
    await insertEvents(ctx, clicks);
    return { tested, clicks };
  }

  /**
   * Reports a conversion of every click an hour after it, all at once, as a nightly postback does:
   * every other one with a conversion_id (written to ClickHouse at once), the others without (spooled).
   */
  async function convertAll(clicks: Array<{ event_id: string; event_time: number }>, on = ctx) {
    const answers = await Promise.all(
      clicks.map((click, i) =>
        on.app.inject({
          method: 'POST',
          url: '/v1/advertiser/conversions',
          headers: { 'x-api-key': advertiser.key },
          payload: { click_id: click.event_id, occurred_at: new Date(click.event_time + 3_600_000).toISOString(), ...(i % 2 === 1 ? { conversion_id: `order-${i}` } : {}) },
        }),
      ),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    return answers.map((answer) => answer.json().data as { cost_usd: number; unbilled_reason: string | null });
  }

  // try42 F2: both were billed all 7 (28 USD on a 10 USD daily budget): the counters hold only today
  // and this month, so the daily ceiling did not apply to yesterday, nor the monthly one to last month.
  it.each([
    ['yesterday', 1],
    ['a day of an earlier month', 35],
  ])("bills the conversions of %s's clicks only up to twice the daily budget, that day's", async (_, daysAgo) => {
    const { tested, clicks } = await clicksAt(Math.floor(Date.now() / DAY_MS - daysAgo) * DAY_MS + 12 * 3_600_000);
    const results = await convertAll(clicks);
    expect(results.filter((result) => result.cost_usd === 4)).toHaveLength(5);
    expect(results.filter((result) => result.cost_usd === 0 && result.unbilled_reason === 'over_daily_budget')).toHaveLength(2);
    const stored = await storedEvents(tested.lineItemId, 14);
    const conversions = stored.filter((event) => event.type === 'conversion');
    expect(conversions.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(20 * USD);
  });

  // try42 F4: a line item that left the index is kept for billing as long as its links live, but its
  // clicks convert for ATTRIBUTION_WINDOW_DAYS: after that, on an instance started since, judge()
  // did not know it and billed all 7 (28 USD on a 20 USD lifetime budget).
  it('bills the conversions of a line item paused longer ago than its links live only up to its lifetime budget', async () => {
    const { tested, clicks } = await clicksAt(Date.now() - 3 * 3_600_000, { daily: 1000, currency: 'USD', pacing: 'asap', lifetime: 20 });
    const paused = await ctx.app.inject({ method: 'PATCH', url: `/v1/advertiser/line-items/${tested.lineItemId}`, headers: { 'x-api-key': advertiser.key }, payload: { status: 'paused' } });
    expect(paused.statusCode).toBe(200);
    // Paused two hours ago, as far as a starting instance can tell, whose links live a minute.
    await ctx.stores.db.query(`UPDATE line_items SET updated_at = now() - interval '2 hours' WHERE id = $1`, [tested.lineItemId]);
    const other = await startAnotherInstance(ctx, { ...env, TRACKING_LINK_TTL_SECONDS: '60' });
    try {
      const results = await convertAll(clicks, other);
      expect(results.filter((result) => result.cost_usd === 4)).toHaveLength(5);
      expect(results.filter((result) => result.cost_usd === 0 && result.unbilled_reason === 'over_lifetime_budget')).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});

describe('billing ceilings: frequency caps', () => {
  const capped = { bids: { bid_type: 'cpm', bid_value: 1000 }, lineItem: { frequency_cap: { impressions: 2, per: 'day' } } };

  /** Pauses the capped line item and waits until this instance no longer serves it. */
  async function pauseCapped({ tested, as }: Capping): Promise<void> {
    const response = await ctx.app.inject({ method: 'PATCH', url: `/v1/advertiser/line-items/${tested.lineItemId}`, headers: { 'x-api-key': advertiser.key }, payload: { status: 'paused' } });
    expect(response.statusCode).toBe(200);
    await eventuallyServed(ctx, publisher.token, as('trent'), tested.lineItemId, false);
  }

  it('serves a user no more than the cap while earlier serves wait for their pixels', async () => {
    const { tested, fallback, as } = await setup(capped);
    const served = await serveAhead(ctx, as('mallory'), tested.lineItemId, 10);
    expect(served).toHaveLength(2);
    // Another user is not held back by mallory's serves.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('trent')))).toBe(tested.lineItemId);
    await firePixels(ctx, served);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('mallory')))).toBe(fallback.lineItemId);

    const impressions = (await storedEvents(tested.lineItemId, 2)).filter((event) => event.type === 'impression');
    expect(impressions.filter((event) => event.unbilled === '')).toHaveLength(2);
  });

  it('bills no impression past the cap when serves made elsewhere, and before a restart, fire later', async () => {
    const { tested, as } = await setup(capped);
    // Each instance knows only its own outstanding serves: three instances serve the cap each.
    const others = [await startAnotherInstance(ctx, env), await startAnotherInstance(ctx, env)];
    const served: LightMyRequestResponse[] = [];
    try {
      for (const on of [ctx, ...others]) {
        await eventuallyServed(on, publisher.token, as('warm-up'), tested.lineItemId);
        served.push(...(await serveAhead(on, as('mallory'), tested.lineItemId, 4)));
      }
    } finally {
      for (const other of others) await other.close();
    }
    expect(served).toHaveLength(6);
    await firePixels(ctx, served.slice(0, 4));
    await storedEvents(tested.lineItemId, 4);

    // A restart: the counts come back from ClickHouse.
    await ctx.close();
    ctx = await startTestApp(env);
    await firePixels(ctx, served.slice(4));

    const impressions = (await storedEvents(tested.lineItemId, 6)).filter((event) => event.type === 'impression');
    expect(impressions).toHaveLength(6);
    const billed = impressions.filter((event) => event.unbilled === '');
    expect(billed).toHaveLength(2);
    expect(impressions.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(2 * USD);
    expect(impressions.filter((event) => event.unbilled === 'over_frequency_cap' && event.ivt === '')).toHaveLength(4);
  });

  it('keeps counting a paused line item\'s impressions against its cap while its links live', async () => {
    const capping = await setup(capped);
    const { tested } = capping;
    const served = await serveTheCapHereAndElsewhere(capping);
    await pauseCapped(capping);

    // After the pause: this instance's own serves' pixels, then the other instance's, all here.
    await firePixels(ctx, served.slice(0, 2));
    await storedEvents(tested.lineItemId, 2);
    await firePixels(ctx, served.slice(2));
    const impressions = (await storedEvents(tested.lineItemId, 4)).filter((event) => event.type === 'impression');
    expect(impressions.filter((event) => event.unbilled === '')).toHaveLength(2);
    expect(impressions.filter((event) => event.unbilled === 'over_frequency_cap')).toHaveLength(2);
  });

  it('bills no impression past the cap for a line item paused before a restart', async () => {
    const capping = await setup(capped);
    const { tested } = capping;
    // Two instances serve mallory the cap each, then the line item is paused and the first one restarts.
    const served = await serveTheCapHereAndElsewhere(capping);
    await firePixels(ctx, served.slice(0, 2));
    await storedEvents(tested.lineItemId, 2);
    await pauseCapped(capping);

    await ctx.close();
    ctx = await startTestApp(env);
    await firePixels(ctx, served.slice(2));
    const impressions = (await storedEvents(tested.lineItemId, 4)).filter((event) => event.type === 'impression');
    expect(impressions).toHaveLength(4);
    expect(impressions.filter((event) => event.unbilled === '')).toHaveLength(2);
    expect(impressions.filter((event) => event.unbilled === 'over_frequency_cap')).toHaveLength(2);
  });
});

describe('billing ceilings after a crash: the spool it left counts before it is replayed', () => {
  /**
   * The valid pixels of `served`, accepted into ctx's spool by a process that ClickHouse cannot reach
   * and killed -9 there (ctx is closed meanwhile: a spool is one process's); then ctx starts again
   * on that spool while another pipeline holds the billing lock, so the spool's replay waits behind
   * it, past the start's first syncs. Returns the lock's release.
   */
  async function crashWithSpooledPixels(served: LightMyRequestResponse[]): Promise<() => void> {
    const pixels = served.map((response) => {
      const claims = claimsOf(ctx, response);
      return sampleEvent({
        serve_id: claims.s, campaign_id: claims.c, line_item_id: claims.l, creative_id: claims.r, placement_id: claims.p, publisher_id: claims.u,
        price_model: claims.m, cost_nanos: claims.n, price_nanos: claims.n, user_key: claims.k ?? '', user_agent: BROWSER_UA,
      });
    });
    await ctx.close();
    const file = path.join(tempDirectory('spooled-'), 'events.json');
    writeFileSync(file, JSON.stringify(pixels));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/spoolThenKilledChild.ts'), ctx.dataDir, file], { cwd: packageRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`spooled ${pixels.length}\n`)) resolve();
      });
      void exited.then(() => reject(new Error(`the spooling process exited: ${output}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(readdirSync(path.join(ctx.dataDir, 'spool')).filter((name) => name.endsWith('.jsonl')).length).toBeGreaterThan(0);

    let release!: () => void;
    const holding = new Promise<void>((resolve) => {
      void billingLock(ctx.stores.db)(() => {
        resolve();
        return new Promise<void>((done) => (release = done));
      });
    });
    await holding;
    ctx = await startTestApp(env);
    return release;
  }

  // try42 F1: the repeats were taken for first pixels until the replay wrote their serves: they
  // counted 8 USD more against the 10 USD ceiling, and the 6 new impressions were all stored over it.
  it('takes a repeat of a spooled pixel for the duplicate it is, so it uses up none of the ceiling', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 14, 3);
    const release = await crashWithSpooledPixels(served.slice(0, 8));
    try {
      // The same 8 pixels again (a page shown again), and 6 first ones, at once.
      await firePixels(ctx, served);
    } finally {
      release();
    }
    const events = await storedEvents(tested.lineItemId, 22);
    expect(events.filter((event) => event.ivt === 'duplicate')).toHaveLength(8);
    expect(events.filter((event) => event.ivt === '' && event.cost_nanos > 0)).toHaveLength(10);
    expect(events.filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(4);
  });

  it('stops serving and billing at the budget the spooled spend used up', async () => {
    const { tested, as } = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 14, 3);
    // 8 USD accepted before the crash: past the 5 USD budget, 2 USD short of the 10 USD ceiling.
    const release = await crashWithSpooledPixels(served.slice(0, 8));
    try {
      expect.soft(servedLineItem(ctx, await serve(ctx, publisher.token, as()))).not.toBe(tested.lineItemId);
      await firePixels(ctx, served.slice(8));
    } finally {
      release();
    }
    const events = await storedEvents(tested.lineItemId, 14);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(10 * USD);
    expect(events.filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(4);
  });

  it("counts the spooled impressions against each user's frequency cap", async () => {
    const capping = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, lineItem: { frequency_cap: { impressions: 2, per: 'day' } } });
    const { tested, as } = capping;
    const served = await serveTheCapHereAndElsewhere(capping);
    const release = await crashWithSpooledPixels(served.slice(0, 2));
    try {
      expect.soft(servedLineItem(ctx, await serve(ctx, publisher.token, as('mallory')))).not.toBe(tested.lineItemId);
      await firePixels(ctx, served.slice(2));
    } finally {
      release();
    }
    const impressions = (await storedEvents(tested.lineItemId, 4)).filter((event) => event.type === 'impression');
    expect(impressions).toHaveLength(4);
    expect(impressions.filter((event) => event.unbilled === '')).toHaveLength(2);
    expect(impressions.filter((event) => event.unbilled === 'over_frequency_cap')).toHaveLength(2);
  });
});

describe('billing ceilings: repeats of serves an earlier run or another instance counted', () => {
  const tcpm = { bids: { bid_type: 'cpm', bid_value: 1000 } };

  /** Fires `served`'s pixels at `on` at once and waits until ClickHouse has their `count` events. */
  async function firedAndWritten(on: TestContext, lineItemId: string, served: LightMyRequestResponse[], count: number): Promise<void> {
    await firePixels(on, served);
    await storedEvents(lineItemId, count);
  }

  // try42 F1: a process takes the repeat of a serve it does not remember for a first pixel until its
  // write finds it a duplicate. Before, the 12 repeats counted 2 USD more against the 14 USD ceiling
  // until written, and the 4 new impressions fired with them were all stored over it: 12 of 14
  // billed. So they were too while a check asked only its first pixel's serve (rev44 R7): the
  // burst's other repeats then took the room each check freed, 3 repeats settled a round.
  it('bills the new impressions up to the daily ceiling after a clean restart, and stores the repeats duplicate', async () => {
    const { tested, as } = await setup({ ...tcpm, budget: { daily: 7, currency: 'USD', pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 16, 4);
    await firedAndWritten(ctx, tested.lineItemId, served.slice(0, 12), 12);
    await ctx.close();
    ctx = await startTestApp(env);
    // The same 12 pages shown again (a reload, a restored tab) and 4 first ones, at once.
    await firePixels(ctx, served);

    const events = await storedEvents(tested.lineItemId, 28);
    expect(events.filter((event) => event.ivt === 'duplicate' && event.cost_nanos === 0)).toHaveLength(12);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(14 * USD);
    expect(events.filter((event) => event.ivt === '' && event.cost_nanos > 0)).toHaveLength(14);
    expect(events.filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(2);
  });

  it('bills the new impressions up to the lifetime budget at an instance that never saw the repeated serves', async () => {
    const { tested, as } = await setup({ ...tcpm, budget: { daily: 1000, currency: 'USD', lifetime: 10, pacing: 'asap' } });
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 14, 3);
    const first = await startAnotherInstance(ctx, env);
    try {
      await firedAndWritten(first, tested.lineItemId, served.slice(0, 8), 8);
    } finally {
      await first.close();
    }
    // Started once the 8 were written: it has their spend from its start, and none of their serves.
    const second = await startAnotherInstance(ctx, env);
    try {
      await firePixels(second, served);
    } finally {
      await second.close();
    }

    const events = await storedEvents(tested.lineItemId, 22);
    expect(events.filter((event) => event.ivt === 'duplicate' && event.cost_nanos === 0)).toHaveLength(8);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(10 * USD);
    expect(events.filter((event) => event.unbilled === 'over_lifetime_budget')).toHaveLength(4);
  });

  it('keeps the combined spend of two instances within the daily ceiling once one has the other\'s, and each within it when they bill at once', async () => {
    const { tested, as } = await setup({ ...tcpm, budget: { daily: 5, currency: 'USD', pacing: 'asap' } });
    // 18 serves at 1 USD a day of 5 USD take four instances (each holds only its own serves).
    const served = await serveAheadOnInstances(as(), tested.lineItemId, 18, 4);
    const [b, c] = [await startAnotherInstance(ctx, env), await startAnotherInstance(ctx, env)];
    try {
      // At once at two instances: neither has the other's spend yet, each bills up to the ceiling
      // (docs/serving.md: with N instances, past it by what the others bill in one flush and sync).
      await Promise.all([firePixels(b, served.slice(0, 7)), firePixels(c, served.slice(7, 14))]);
      const atOnce = await storedEvents(tested.lineItemId, 14);
      const billedAtOnce = atOnce.reduce((sum, event) => sum + event.cost_nanos, 0);
      expect(billedAtOnce).toBeGreaterThanOrEqual(10 * USD);
      expect(billedAtOnce).toBeLessThanOrEqual(2 * 10 * USD);
    } finally {
      await b.close();
      await c.close();
    }
    // An instance that has both instances' spend (started after their writes) bills nothing more.
    const d = await startAnotherInstance(ctx, env);
    try {
      await firePixels(d, served.slice(14));
    } finally {
      await d.close();
    }
    const events = await storedEvents(tested.lineItemId, 18);
    expect(events.slice(14).every((event) => event.unbilled === 'over_daily_budget' && event.cost_nanos === 0)).toBe(true);
  });
});

describe('billing ceilings: a frequency cap across instances', () => {
  it('bills no impression past the cap at an instance that has the other\'s impressions of the user', async () => {
    const capping = await setup({ bids: { bid_type: 'cpm', bid_value: 1000 }, lineItem: { frequency_cap: { impressions: 2, per: 'day' } } });
    const { tested } = capping;
    const served = await serveTheCapHereAndElsewhere(capping);
    const b = await startAnotherInstance(ctx, env);
    try {
      await firePixels(b, served.slice(0, 2));
      await storedEvents(tested.lineItemId, 2);
    } finally {
      await b.close();
    }
    const c = await startAnotherInstance(ctx, env);
    try {
      await firePixels(c, served.slice(2));
    } finally {
      await c.close();
    }
    const impressions = (await storedEvents(tested.lineItemId, 4)).filter((event) => event.type === 'impression');
    expect(impressions.filter((event) => event.unbilled === '')).toHaveLength(2);
    expect(impressions.slice(2).every((event) => event.unbilled === 'over_frequency_cap')).toBe(true);
  });
});
