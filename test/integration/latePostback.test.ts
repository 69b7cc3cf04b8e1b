import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATE_TURNS_WAITING } from '../../src/tracking/billingCeiling.js';
import type { TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { insertEvents, servableLineItem, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

/**
 * A nightly postback: many conversions of one CPA line item dated yesterday, sent at once. Each is
 * judged against its day's spend, read from ClickHouse, in its line item's late turn
 * (BillingCeiling.lateTurn): rev42 R1 found them queued inside the conversion lock, so on a
 * Postgres server one line item's postback kept the instance's 3 lock holders busy and every other
 * conversion with a conversion_id was answered 503 for its length; without conversion_id the queue
 * had no bound.
 */

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };
const DAY_MS = 86_400_000;
const USD = 1e9;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ IVT_ALLOW_PRIVATE_IPS: 'true' }));
});
afterAll(async () => {
  await ctx.close();
});

/** A CPA line item (4 USD; 10 USD a day unless told, asap) and `count` valid clicks of it, from `firstMs` a second apart. */
async function clicksOf(count: number, firstMs: number, daily = 10) {
  const placement = await createCertifiedPlacement(ctx, publisher.id);
  const tested = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpa', bid_value: 4 }, budget: { daily, currency: 'USD', pacing: 'asap' } });
  const { rows } = await ctx.stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [tested.lineItemId]);
  const clicks = Array.from({ length: count }, (_, i) => {
    const id = randomUUID();
    return sampleEvent({
      ...{ event_id: id, click_id: id, type: 'click', source: 'click', event_time: firstMs + i * 1000 },
      ...{ campaign_id: tested.campaignId, line_item_id: tested.lineItemId, creative_id: rows[0]!.id, placement_id: placement, publisher_id: publisher.id },
      ...{ price_model: 'CPA', cost_nanos: 0, price_nanos: 4 * USD },
    });
  });
  await insertEvents(ctx, clicks);
  return { lineItemId: tested.lineItemId, clicks };
}

/** Noon yesterday (UTC): whatever the time of day now, a day before today's. */
const yesterdayNoon = () => Math.floor(Date.now() / DAY_MS - 1) * DAY_MS + 12 * 3_600_000;

function convert(click: { event_id: string; event_time: number }, conversionId?: string): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: '/v1/advertiser/conversions',
    headers: { 'x-api-key': advertiser.key },
    payload: { click_id: click.event_id, occurred_at: new Date(click.event_time + 60_000).toISOString(), ...(conversionId ? { conversion_id: conversionId } : {}) },
  });
}

async function storedSpend(lineItemId: string, conversions: number): Promise<{ conversions: number; spend: number }> {
  return eventually(async () => {
    const result = await ctx.stores.ch.client.query({
      query: `SELECT toFloat64(count()) AS conversions, toFloat64(sum(cost_nanos)) AS spend FROM events_v1 WHERE line_item_id = {id:UUID} AND type = 'conversion'`,
      query_params: { id: lineItemId },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ conversions: number; spend: number }>();
    return row!.conversions >= conversions ? row : undefined;
  }, `${conversions} conversions in ClickHouse`);
}

describe("a postback of one line item's conversions dated yesterday", () => {
  // On a Postgres server, before the fix, every one of the other line item's conversions that came
  // while the postback's first conversions were in its queue was answered 503: the postback held
  // all 3 conversion-lock holders, waiting for each other's spend reads.
  it("leaves another line item's conversions with a conversion_id their lock holders: none is answered 503 meanwhile", async () => {
    const late = await clicksOf(30, yesterdayNoon(), 1000);
    // Today's, whatever the time of day (an hour back is yesterday's until 01:00 UTC: late too).
    const other = await clicksOf(30, Math.max(Date.now() - 60_000, Math.floor(Date.now() / DAY_MS) * DAY_MS), 1000);
    // Sent at once, as a postback sends them; each is answered in its turn.
    const postback = Promise.all(late.clicks.map((click, i) => convert(click, `night-${i}`)));
    let done = false;
    void postback.finally(() => (done = true));
    const answers: LightMyRequestResponse[] = [];
    for (const [i, click] of other.clicks.entries()) {
      if (done && answers.length > 0) break;
      answers.push(await convert(click, `today-${i}`));
    }
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    for (const answer of await postback) expect(answer.statusCode, answer.body).toBe(201);
    // All within 2x the daily budget of 1,000 USD: every one billed, each read saw the ones before.
    expect(await storedSpend(late.lineItemId, 30)).toEqual({ conversions: 30, spend: 120 * USD });
  });

  // Before the fix nothing bounded the queue: a postback client that timed out and retried a
  // conversion without conversion_id sent a new one while the first still waited, and both were billed.
  it(`answers 503 with Retry-After, storing nothing, to those past the ${LATE_TURNS_WAITING} of a line item already waiting`, async () => {
    // Twice the bound at once: they reach the queue within their own lookups' time, far less than 50 turns take.
    const late = await clicksOf(2 * LATE_TURNS_WAITING, yesterdayNoon());
    const answers = await Promise.all(late.clicks.map((click) => convert(click)));
    const taken = answers.filter((answer) => answer.statusCode === 201);
    const refused = answers.filter((answer) => answer.statusCode !== 201);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(answer.json().error.code).toBe('unavailable');
    }
    // Those taken judged one after the other against yesterday's 2x (20 USD): 5 billed, the rest at cost 0.
    expect(taken.filter((answer) => answer.json().data.cost_usd === 4)).toHaveLength(5);
    expect(await storedSpend(late.lineItemId, taken.length)).toEqual({ conversions: taken.length, spend: 20 * USD });
  });
});
