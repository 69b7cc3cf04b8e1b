import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { MS_PER_DAY, utcDay } from '../../src/utcDays.js';
import type { TestContext } from './testApp.js';
import { createCertifiedPlacement } from './factories.js';
import { insertEvents, servableLineItem, type Advertiser } from './servingFixtures.js';
import { sampleEvent } from './sampleEvent.js';

/**
 * A postback's conversions and the clicks they quote, for test/integration/latePostback.test.ts and
 * the measurement bench/latePostback.ts: neither imports vitest, so the bench runs them with tsx.
 */

const USD = 1e9;

/** Noon yesterday (UTC): whatever the time of day now, a day before today's. */
export function yesterdayNoon(nowMs = Date.now()): number {
  return (utcDay(nowMs) - 1) * MS_PER_DAY + 12 * 3_600_000;
}

/**
 * A CPA line item (4 USD a conversion; `daily` USD a day, asap) of a new certified placement of the
 * publisher, and `count` valid clicks of it, from `at` a second apart (or at `at(i)`), stored in
 * ClickHouse as an instance's pipeline would have stored them: a conversion can quote them at once.
 */
export async function cpaClicks(ctx: TestContext, advertiser: Advertiser, publisherId: string, count: number, at: number | ((i: number) => number), daily: number) {
  const timeOf = typeof at === 'number' ? (i: number) => at + i * 1000 : at;
  const placement = await createCertifiedPlacement(ctx, publisherId);
  const tested = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpa', bid_value: 4 }, budget: { daily, currency: 'USD', pacing: 'asap' } });
  const { rows } = await ctx.stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [tested.lineItemId]);
  const clicks = Array.from({ length: count }, (_, i) => {
    const id = randomUUID();
    return sampleEvent({
      ...{ event_id: id, click_id: id, type: 'click', source: 'click', event_time: timeOf(i) },
      ...{ campaign_id: tested.campaignId, line_item_id: tested.lineItemId, creative_id: rows[0]!.id, placement_id: placement, publisher_id: publisherId },
      ...{ price_model: 'CPA', cost_nanos: 0, price_nanos: 4 * USD },
    });
  });
  await insertEvents(ctx, clicks);
  return { lineItemId: tested.lineItemId, clicks };
}

/** Reports a conversion of the click a minute after it, with `conversionId` when given. */
export function convert(ctx: TestContext, advertiser: Advertiser, click: { event_id: string; event_time: number }, conversionId?: string): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: '/v1/advertiser/conversions',
    headers: { 'x-api-key': advertiser.key },
    payload: { click_id: click.event_id, occurred_at: new Date(click.event_time + 60_000).toISOString(), ...(conversionId ? { conversion_id: conversionId } : {}) },
  });
}
