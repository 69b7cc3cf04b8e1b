import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { eventually } from '../helpers/eventually.js';
import { eventuallyServed, firePixel, insertEvents, keywordWithFallback, servableLineItem, serve, servedLineItem, uniqueWord, type Advertiser, type LineItemSpec } from '../helpers/servingFixtures.js';
import { detailPaths } from '../helpers/errorDetails.js';
import { metricSample } from '../helpers/metricSample.js';
import { dailyAllowanceShare } from '../../src/serving/spendPacing.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

// The test's pixel requests come from 127.0.0.1: count them like a browser's.
const env = { IVT_ALLOW_PRIVATE_IPS: 'true' };
const USD = 1e9;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher(env));
});
afterAll(async () => {
  await ctx.close();
});

/**
 * A certified placement, a cheap fallback line item on a fresh keyword, and the line item under test
 * on it; `first`, the serve that found it in the index, holds its expected cost until its pixel comes.
 */
async function setup(budget: NonNullable<LineItemSpec['budget']>, bidCpm: number) {
  const placement = await createCertifiedPlacement(ctx, publisher.id);
  const { word, fallback } = await keywordWithFallback(ctx, advertiser);
  const tested = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: bidCpm }, budget, targeting: { keywords: { include: [word] } } });
  const body = { placement_id: placement, context: { query: word, response: '' } };
  const first = await eventuallyServed(ctx, publisher.token, body, tested.lineItemId);
  return { placement, tested, fallback, body, first };
}

/**
 * Makes the index rebuild from the whole catalog, as after changes it had not read were pruned: the
 * prune mark goes above what it has read, and a catalog change makes it read the log.
 */
async function rebuildIndex(on: TestContext): Promise<void> {
  const builds = () => metricSample(on, 'adsvc_ad_index_rebuild_seconds_count');
  const before = await builds();
  const { db } = on.stores;
  const mark = (await db.query<{ below: string }>('SELECT below::text AS below FROM catalog_changes_pruned')).rows[0]!.below;
  await db.query(`UPDATE catalog_changes_pruned SET below = (pg_snapshot_xmin(pg_current_snapshot())::text::bigint + 1000000)::text::xid8`);
  try {
    await createCertifiedPlacement(on, publisher.id);
    await eventually(async () => ((await builds()) > before ? true : undefined), 'the index to be rebuilt');
  } finally {
    await db.query('UPDATE catalog_changes_pruned SET below = $1::xid8', [mark]);
  }
}

describe('budgets: management', () => {
  it('stores lifetime and pacing (even by default), and refuses a bad one with every field named', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [uniqueWord()] } } });
    const even = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 10, currency: 'eur', lifetime: 300 });
    expect(even.json().data.budget).toEqual({ daily: 10, currency: 'EUR', lifetime: 300, pacing: 'even' });
    const asap = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 10, currency: 'USD', pacing: 'asap' });
    expect(asap.json().data.budget).toEqual({ daily: 10, currency: 'USD', lifetime: null, pacing: 'asap' });
    const refused = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 10, currency: 'USD', lifetime: -1, pacing: 'fast' });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused).sort()).toEqual(['lifetime', 'pacing']);
    expect((await call('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.budget).toEqual(asap.json().data.budget);
  });
});

/**
 * What the line item's own route and its campaign's list say stopped its delivery (delivery_stopped_by);
 * the two must agree.
 */
async function stoppedBy(tested: { campaignId: string; lineItemId: string }): Promise<string | null> {
  const call = asAdvertiser(ctx, advertiser.key);
  const own = await call('GET', `/v1/advertiser/line-items/${tested.lineItemId}`);
  expect(own.statusCode).toBe(200);
  const listed = await call('GET', `/v1/advertiser/campaigns/${tested.campaignId}/line-items`);
  expect(listed.statusCode).toBe(200);
  expect(listed.json().data.map((lineItem: { delivery_stopped_by: string | null }) => lineItem.delivery_stopped_by)).toEqual([own.json().data.delivery_stopped_by]);
  return own.json().data.delivery_stopped_by;
}

describe('budgets: serving', () => {
  it('stops a line item when its lifetime spend reaches the lifetime budget, through pixels and after a restart', async () => {
    // 10 USD an impression (tCPM 10,000) against a 20 USD lifetime budget: the second impression exhausts it.
    const { tested, fallback, body, first } = await setup({ daily: 1000, currency: 'USD', lifetime: 20, pacing: 'asap' }, 10_000);
    // The serve that found it in the index is the first impression: until its pixel, it holds its
    // 10 USD against the lifetime budget with the next serve's.
    expect(await stoppedBy(tested)).toBeNull();
    await firePixel(ctx, first);
    expect(await stoppedBy(tested)).toBeNull();
    const response = await serve(ctx, publisher.token, body);
    expect(servedLineItem(ctx, response)).toBe(tested.lineItemId);
    await firePixel(ctx, response);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
    // Still active: the response says why it no longer delivers.
    expect(await stoppedBy(tested)).toBe('lifetime_budget');

    await ctx.close();
    ctx = await startTestApp(env);
    // The first serve of the new instance knows the lifetime spend, from ClickHouse.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
    expect(await stoppedBy(tested)).toBe('lifetime_budget');
    // A higher lifetime budget lets it deliver again, and says so at once.
    const raised = await asAdvertiser(ctx, advertiser.key)('PUT', `/v1/advertiser/line-items/${tested.lineItemId}/budget`, { daily: 1000, currency: 'USD', lifetime: 40, pacing: 'asap' });
    expect(raised.statusCode).toBe(200);
    // The write's own answer is judged by the budget it stored, not the index's, a moment behind.
    expect(raised.json().data).toMatchObject({ budget: { lifetime: 40 }, delivery_stopped_by: null });
    await eventuallyServed(ctx, publisher.token, body, tested.lineItemId);
    expect(await stoppedBy(tested)).toBeNull();
  });

  it('keeps the spend across index rebuilds between a serve and its pixel, and between a pixel and the next serve', async () => {
    const { tested, fallback, body } = await setup({ daily: 1000, currency: 'USD', lifetime: 20, pacing: 'asap' }, 10_000);
    // No pacing sync in the hour: only the counter the index holds can know this instance's spend.
    const instance = await startAnotherInstance(ctx, { ...env, PACING_SYNC_MS: '3600000' });
    try {
      // Its pixel comes: an unshown serve would hold its 10 USD against the lifetime budget.
      const first = await eventuallyServed(instance, publisher.token, body, tested.lineItemId);
      await rebuildIndex(instance);
      await firePixel(instance, first);
      const second = await serve(instance, publisher.token, body);
      expect(servedLineItem(instance, second)).toBe(tested.lineItemId);
      await firePixel(instance, second);
      await rebuildIndex(instance);
      expect(servedLineItem(instance, await serve(instance, publisher.token, body))).toBe(fallback.lineItemId);
    } finally {
      await instance.close();
    }
  });

  it('stops a line item once its lifetime budget has no room for one more billed event', async () => {
    // 10 USD an impression against 15 USD: a second impression could not be billed (the lifetime
    // ceiling, src/tracking/billingCeiling.ts), so it is not served: not while the first serve
    // waits for its pixel (its 10 USD held, and 10 more do not fit the 15: try37 L2), nor after.
    const { tested, fallback, body, first } = await setup({ daily: 1000, currency: 'USD', lifetime: 15, pacing: 'asap' }, 10_000);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
    await firePixel(ctx, first);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
    // 5 USD of it left, not a whole event's worth: stopped by it all the same.
    expect(await stoppedBy(tested)).toBe('lifetime_budget');
  });

  it('bills a line item whose price is above twice its daily budget one event a day, and serves it no more', async () => {
    // 11 USD an impression against 5 USD a day: the day's first impression is billed, whatever was served
    // ahead. One serve holds an instance's whole budget until its pixel, so the other two come from two
    // more instances (each knows only its own outstanding serves).
    const { tested, fallback, body, first } = await setup({ daily: 5, currency: 'USD', pacing: 'asap' }, 11_000);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
    const served = [first];
    for (let i = 0; i < 2; i++) {
      const other = await startAnotherInstance(ctx, env);
      try {
        served.push(await serve(other, publisher.token, body));
      } finally {
        await other.close();
      }
    }
    for (const response of served) expect(servedLineItem(ctx, response)).toBe(tested.lineItemId);
    await Promise.all(served.map((response) => firePixel(ctx, response)));
    await eventuallyServed(ctx, publisher.token, body, fallback.lineItemId);
    const costs = await eventually(async () => {
      const result = await ctx.stores.ch.client.query({
        query: `SELECT toFloat64(cost_nanos) AS cost, unbilled FROM events_v1 WHERE line_item_id = {id:UUID} ORDER BY cost DESC`,
        query_params: { id: tested.lineItemId },
        format: 'JSONEachRow',
      });
      const rows = await result.json<{ cost: number; unbilled: string }>();
      return rows.length === 3 ? rows : undefined;
    }, 'the three impressions');
    expect(costs).toEqual([
      { cost: 11 * USD, unbilled: '' },
      { cost: 0, unbilled: 'over_daily_budget' },
      { cost: 0, unbilled: 'over_daily_budget' },
    ]);
  });

  it("counts earlier days' spend, written by any instance, against the lifetime budget", async () => {
    const { placement, tested, fallback, body } = await setup({ daily: 1000, currency: 'USD', lifetime: 15, pacing: 'asap' }, 100);
    const yesterday = sampleEvent({
      campaign_id: tested.campaignId,
      line_item_id: tested.lineItemId,
      placement_id: placement,
      publisher_id: publisher.id,
      cost_nanos: 20 * USD,
      event_time: Date.now() - 86_400_000,
    });
    await insertEvents(ctx, [yesterday]);
    await eventuallyServed(ctx, publisher.token, body, fallback.lineItemId);
  });

  it('even pacing spends about the elapsed share of the UTC day, then lets the next line item serve', async () => {
    // 24 USD a day at 1 USD an impression: about one impression per hour elapsed today, plus one hour's.
    const startShare = dailyAllowanceShare(Date.now());
    const { tested, fallback, body, first } = await setup({ daily: 24, currency: 'USD' }, 1000);
    await firePixel(ctx, first);
    let impressions = 1;
    for (;;) {
      const response = await serve(ctx, publisher.token, body);
      const served = servedLineItem(ctx, response);
      if (served !== tested.lineItemId) {
        expect(served).toBe(fallback.lineItemId);
        break;
      }
      await firePixel(ctx, response);
      impressions += 1;
      expect(impressions).toBeLessThanOrEqual(25);
    }
    const endShare = dailyAllowanceShare(Date.now());
    // It stops at the first impression that reaches the share released so far.
    expect(impressions).toBeGreaterThanOrEqual(Math.ceil(24 * startShare));
    expect(impressions).toBeLessThanOrEqual(Math.ceil(24 * endShare));
  });
});
