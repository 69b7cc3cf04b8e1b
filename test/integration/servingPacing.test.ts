import { randomUUID } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { eventually } from '../helpers/eventually.js';
import { createCertifiedPlacement, createPlacement, createPublisher, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { eventuallyServed, firePixel, insertEvents, keywordWithFallback, servableLineItem, serve, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { SpendPacing, dailyAllowanceShare } from '../../src/serving/spendPacing.js';
import { IndexedDestinations } from '../../src/serving/indexedDestinations.js';
import { BillingCeiling } from '../../src/tracking/billingCeiling.js';
import { newServeId } from '../../src/serving/serveId.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { freePort } from '../helpers/freePort.js';
import { createLinkTracker } from '../../src/tracking/linkTracker.js';
import { ServeLedger } from '../../src/tracking/serveLedger.js';
import { ServeHistoryLookup } from '../../src/tracking/serveHistoryLookup.js';
import { findServeHistories } from '../../src/tracking/serveHistory.js';
import { ImpressionVelocity } from '../../src/tracking/impressionVelocity.js';
import { PlacementBlocks } from '../../src/tracking/placementBlocks.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

// The test's pixel requests come from 127.0.0.1: count them like a browser's.
const env = { IVT_ALLOW_PRIVATE_IPS: 'true' };

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher(env));
});
afterAll(async () => {
  await ctx.close();
});

const USD = 1e9;

describe('pacing: daily budgets', () => {
  /**
   * A line item that a test spends in full through ClickHouse alongside the rows it is about: once
   * the witness stops being served, a pacing sync has read those rows too. Tests wait on that
   * rather than on a guessed number of sync intervals. CPC, so it serves on any placement. asap, so
   * that only spend stops it: paced even, right after 00:00 UTC its 20 USD released 0.83, which two
   * serves' holds (0.5 USD each) fill, and it stopped being served before any sync.
   */
  async function syncWitness(placement: string) {
    const word = uniqueWord();
    const witness = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 50 },
      budget: { daily: 20, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, witness.lineItemId);
    return {
      spendsItsBudget: sampleEvent({
        campaign_id: witness.campaignId,
        line_item_id: witness.lineItemId,
        placement_id: placement,
        publisher_id: publisher.id,
        type: 'click',
        cost_nanos: 50 * USD,
      }),
      synced: () => eventuallyServed(ctx, publisher.token, body, witness.lineItemId, false),
    };
  }

  /**
   * 10 USD per event against a 15 USD daily budget: the second event exhausts it. Its first serve (the
   * one that found it in the index) is returned: until its event comes, it holds its expected cost.
   */
  async function cappedSetup(bids: { bid_type: 'cpm' | 'cpc'; bid_value: number }) {
    const placement = await createCertifiedPlacement(ctx, publisher.id);
    const { word, fallback } = await keywordWithFallback(ctx, advertiser, 5);
    const capped = await servableLineItem(ctx, advertiser, {
      bids,
      budget: { daily: 15, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const first = await eventuallyServed(ctx, publisher.token, body, capped.lineItemId);
    return { placement, capped, fallback, body, first };
  }

  it('stops serving a line item as soon as its tracked spend today reaches the daily budget, and after a restart', async () => {
    // 10 USD per impression (tCPM 10,000).
    const { capped, fallback, body, first } = await cappedSetup({ bid_type: 'cpm', bid_value: 10_000 });
    await firePixel(ctx, first);
    // 10 of 15 USD spent: still serving.
    const second = await serve(ctx, publisher.token, body);
    expect(servedLineItem(ctx, second)).toBe(capped.lineItemId);
    await firePixel(ctx, second);
    // 20 of 15 USD: this instance counted its own impressions at once, without waiting for a sync.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);

    await ctx.close();
    ctx = await startTestApp(env);
    // The first serve of the new instance already knows today's spend, from ClickHouse.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(fallback.lineItemId);
  });

  it("counts other instances' spend from ClickHouse at the next pacing sync", async () => {
    // 10 USD per click (CPC): each serve holds only its expected cost (10 USD x a 1 % CTR), so what
    // stops the line item below is the other instance's spend.
    const { placement, capped, fallback, body } = await cappedSetup({ bid_type: 'cpc', bid_value: 10 });
    const click = () =>
      sampleEvent({ campaign_id: capped.campaignId, line_item_id: capped.lineItemId, placement_id: placement, publisher_id: publisher.id, type: 'click', cost_nanos: 10 * USD });
    const witness = await syncWitness(placement);
    await insertEvents(ctx, [click(), witness.spendsItsBudget]);
    await witness.synced();
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(capped.lineItemId);
    await insertEvents(ctx, [click()]);
    await eventuallyServed(ctx, publisher.token, body, fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).not.toBe(capped.lineItemId);
  });

  it('holds a burst of concurrent serves to the share even pacing has released, then bills their impressions within it', async () => {
    // 0.10 USD an impression (tCPM 100), even pacing, a daily budget whose released share is now about
    // 1 USD: about ten impressions' worth. Spend counts only as pixels come, so without the serves'
    // expected cost held at once every serve of the burst passed, and their pixels billed up to the
    // 2x daily ceiling (session 34's tester: 60 parallel serves billed 48 USD of a 24 USD day at 02:25).
    const startShare = dailyAllowanceShare(Date.now());
    const daily = Math.ceil(100 / startShare) / 100;
    const placement = await createCertifiedPlacement(ctx, publisher.id);
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const paced = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 100 }, budget: { daily, currency: 'USD', pacing: 'even' }, targeting: { keywords: { include: [word] } } });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const served = [await eventuallyServed(ctx, publisher.token, body, paced.lineItemId)];
    const burst = await Promise.all(Array.from({ length: 40 }, () => serve(ctx, publisher.token, body)));
    served.push(...burst.filter((response) => servedLineItem(ctx, response) === paced.lineItemId));
    expect(burst.filter((response) => servedLineItem(ctx, response) === fallback.lineItemId).length).toBe(41 - served.length);
    await Promise.all(served.map((response) => firePixel(ctx, response)));

    const released = (share: number) => daily * share * USD;
    const billed = await eventually(async () => {
      const result = await ctx.stores.ch.client.query({
        query: `SELECT toFloat64(count()) AS impressions, toFloat64(sum(cost_nanos)) AS spend FROM events_v1 WHERE line_item_id = {id:UUID}`,
        query_params: { id: paced.lineItemId },
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ impressions: number; spend: number }>();
      return row!.impressions === served.length ? row!.spend : undefined;
    }, 'the impressions');
    // Serving stops at the first serve whose expected cost reaches the share released so far.
    expect(served.length).toBeGreaterThanOrEqual(Math.floor(released(startShare) / (0.1 * USD)));
    expect(billed).toBeLessThanOrEqual(released(dailyAllowanceShare(Date.now())) + 0.1 * USD);
    expect(billed).toBe(served.length * 0.1 * USD);
  });


  /** The line item's impressions as billing left them (why unbilled, what each cost), once there are `count`. */
  function storedImpressions(lineItemId: string, count: number) {
    return eventually(async () => {
      const result = await ctx.stores.ch.client.query({
        query: `SELECT unbilled, toFloat64(cost_nanos) AS cost FROM events_v1 WHERE line_item_id = {id:UUID}`,
        query_params: { id: lineItemId },
        format: 'JSONEachRow',
      });
      const found = await result.json<{ unbilled: string; cost: number }>();
      return found.length === count ? found : undefined;
    }, 'the impressions');
  }
  it('holds a burst of concurrent serves to what is left of a lifetime budget too: none shown unpaid (try36 L1)', async () => {
    // 0.10 USD an impression (tCPM 100), 0.55 USD of lifetime budget, a daily budget far above it:
    // only the lifetime budget can stop the burst. Without the serves' expected cost counted against
    // it, all 20 were served and 15 of their pixels stored unbilled (over_lifetime_budget); with the
    // holds counted but not the serve's own cost (0.50 held < 0.55 left), a sixth (try37 L2).
    const placement = await createCertifiedPlacement(ctx, publisher.id);
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const lifetime = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 100 },
      budget: { daily: 100, lifetime: 0.55, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const served = [await eventuallyServed(ctx, publisher.token, body, lifetime.lineItemId)];
    const burst = await Promise.all(Array.from({ length: 20 }, () => serve(ctx, publisher.token, body)));
    served.push(...burst.filter((response) => servedLineItem(ctx, response) === lifetime.lineItemId));
    expect(served).toHaveLength(5);
    expect(burst.filter((response) => servedLineItem(ctx, response) === fallback.lineItemId)).toHaveLength(16);
    await Promise.all(served.map((response) => firePixel(ctx, response)));
    const rows = await storedImpressions(lifetime.lineItemId, served.length);
    expect(rows).toEqual(Array(5).fill({ unbilled: '', cost: 0.1 * USD }));
  });

  it('serves the last impression of a lifetime budget only when its price fits what is left: none shown unpaid (try37 L2)', async () => {
    // The tester's line item: 0.003 USD an impression (tCPM 3), 0.01 USD of lifetime budget, serves
    // one after another before any pixel. With 0.009 held of 0.010 left, a fourth was served and its
    // pixel stored at cost 0, over_lifetime_budget.
    const word = uniqueWord();
    const placement = await createCertifiedPlacement(ctx, publisher.id);
    const lifetime = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 3 },
      budget: { daily: 100, lifetime: 0.01, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const served = [await eventuallyServed(ctx, publisher.token, body, lifetime.lineItemId)];
    for (let i = 0; i < 9; i++) {
      const response = await serve(ctx, publisher.token, body);
      if (servedLineItem(ctx, response) === lifetime.lineItemId) served.push(response);
    }
    expect(served).toHaveLength(3);
    await Promise.all(served.map((response) => firePixel(ctx, response)));
    const rows = await storedImpressions(lifetime.lineItemId, served.length);
    expect(rows).toEqual(Array(3).fill({ unbilled: '', cost: 0.003 * USD }));
  });

  it("does not let one publisher's serves that are never shown hold a line item back from another publisher (try36 M4)", async () => {
    // As the burst above: 0.10 USD an impression, even pacing, about 1 USD released. Another
    // publisher asks for serves and never fires a pixel; before, its serves' holds took the line item
    // off every placement for 10 minutes, and the advertiser's preview said "budget" with 0 spent.
    const startShare = dailyAllowanceShare(Date.now());
    const daily = Math.ceil(100 / startShare) / 100;
    const released = daily * dailyAllowanceShare(Date.now()) * USD;
    const other = await createPublisher(ctx);
    const [ours, theirs] = [await createCertifiedPlacement(ctx, publisher.id), await createCertifiedPlacement(ctx, other.id)];
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const paced = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 100 }, budget: { daily, currency: 'USD', pacing: 'even' }, targeting: { keywords: { include: [word] } } });
    const [ourBody, theirBody] = [ours, theirs].map((placement) => ({ placement_id: placement, context: { query: word, response: '' } }));
    await eventuallyServed(ctx, other.token, theirBody!, paced.lineItemId);
    const unshown = await Promise.all(Array.from({ length: 40 }, () => serve(ctx, other.token, theirBody!)));
    const theirsServed = 1 + unshown.filter((response) => servedLineItem(ctx, response) === paced.lineItemId).length;
    // Their serves hold what is released: the line item is held back from them...
    expect(theirsServed).toBeGreaterThanOrEqual(Math.floor(released / (0.1 * USD)));
    expect(servedLineItem(ctx, await serve(ctx, other.token, theirBody!))).toBe(fallback.lineItemId);
    // ...and not from us: their holds count against our serves up to half of what is left.
    const ourBurst = await Promise.all(Array.from({ length: 40 }, () => serve(ctx, publisher.token, ourBody!)));
    const oursServed = ourBurst.filter((response) => servedLineItem(ctx, response) === paced.lineItemId).length;
    expect(oursServed).toBeGreaterThanOrEqual(Math.floor(released / 2 / (0.1 * USD)));
    expect(oursServed).toBeLessThanOrEqual(Math.ceil(released / 2 / (0.1 * USD)) + 1);
    // The advertiser is told the serves waiting for their events hold it back, not spent budget.
    const preview = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/line-items/${paced.lineItemId}/match-preview`, { context: { query: word, response: '' } });
    expect(preview.json().data).toMatchObject({ would_match: false, held_back: ['outstanding_serves'] });
    const explained = (await serve(ctx, publisher.token, { ...ourBody!, explain: true })).json() as { match: { held_back?: Record<string, number> } };
    expect(explained.match.held_back).toEqual({ outstanding_serves: 1 });
  });

  it('does not count invalid traffic or yesterday as spend today', async () => {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    // asap: the verdict is about today's spend alone, not even pacing's release at the hour it runs.
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 50 },
      budget: { daily: 20, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, capped.lineItemId);
    const base = { campaign_id: capped.campaignId, line_item_id: capped.lineItemId, placement_id: placement, type: 'click' as const, cost_nanos: 50 * USD };
    const witness = await syncWitness(placement);
    await insertEvents(ctx, [
      sampleEvent({ ...base, ivt: 'datacenter' }),
      sampleEvent({ ...base, event_time: Date.now() - 86_400_000 }),
      witness.spendsItsBudget,
    ]);
    await witness.synced();
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(capped.lineItemId);
  });

  it("shows a new UTC day's and month's budget state in the match preview and delivery_stopped_by from their first second, before any sync", async () => {
    // Daily 1 USD; 31 USD spent today is past the day's budget and this month's ceiling (30.4 USD).
    const item = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, budget: { daily: 1, currency: 'USD', pacing: 'asap' } });
    await insertEvents(ctx, [sampleEvent({ campaign_id: item.campaignId, line_item_id: item.lineItemId, type: 'click', cost_nanos: 31 * USD })]);
    // An instance of its own, whose start reads that spend and whose next pacing sync is an hour away,
    // so only reading them moves its counters to the new day; they stay there (only forward), so it is closed after.
    const other = await startAnotherInstance(ctx, { ...env, PACING_SYNC_MS: '3600000', FLIGHT_SWEEP_MS: '60000' });
    try {
      const call = asAdvertiser(other, advertiser.key);
      const state = async () => {
        const preview = await call('POST', `/v1/advertiser/line-items/${item.lineItemId}/match-preview`, { context: { query: 'anything', response: '' } });
        const shown = await call('GET', `/v1/advertiser/line-items/${item.lineItemId}`);
        return { held_back: preview.json().data.held_back, delivery_stopped_by: shown.json().data.delivery_stopped_by };
      };
      const stopped = { held_back: ['budget'], delivery_stopped_by: 'monthly_budget' };
      await eventually(async () => (JSON.stringify(await state()) === JSON.stringify(stopped) ? true : undefined), 'the spend read at start');
      const now = new Date();
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 0, 500);
      // Only Date is faked, for the two calls: no sync runs meanwhile.
      vi.useFakeTimers({ toFake: ['Date'] });
      let first;
      try {
        vi.setSystemTime(nextMonth);
        first = await state();
      } finally {
        vi.useRealTimers();
      }
      expect(first).toEqual({ held_back: [], delivery_stopped_by: null });
    } finally {
      await other.close();
    }
  });
});

describe('pacing: counting each event once', () => {
  /**
   * Spend pacing and the billing ceiling wired as serving wires them: billing judges by the line
   * items serving keeps, whose counters it rolls to the judged time first. `retired` adds a line
   * item of those budgets, kept as retired (left the index at leftAtMs), with its spend counter.
   */
  function billingAsServingWiresIt(leftAtMs: number) {
    const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(0) });
    const destinations = new IndexedDestinations(3_600_000);
    destinations.rollCountersWith((nowMs) => pacing.roll(nowMs));
    const ceiling = new BillingCeiling(
      (lineItemId, nowMs) => destinations.billedLineItem(lineItemId, nowMs),
      (lineItems, fromDay) => pacing.billedSpend(lineItems, fromDay),
    );
    const retired = (budgets: { budgetNanos: number; lifetimeBudgetNanos: number }) => {
      const lineItemId = randomUUID();
      const counter = pacing.counterFor(lineItemId);
      destinations.keepRetired(lineItemId, leftAtMs, () => ({ ...budgets, spend: counter, frequencyCap: null }));
      return { lineItemId, counter };
    };
    return { pacing, ceiling, retired };
  }

  async function pipelineWithPacing() {
    const pipeline = await createClickHouseEventPipeline({
      config: {
        DATA_DIR: tempDirectory('adsvc-pacing-'),
        EVENT_FLUSH_ROWS: 1_000_000,
        // Written only when the test flushes.
        EVENT_FLUSH_INTERVAL_MS: 3_600_000,
        EVENT_BUFFER_MAX_ROWS: 1_000_000,
        EVENT_SPOOL_FSYNC: false,
      },
      ch: ctx.stores.ch,
      log: ctx.app.log,
    });
    const pacing = new SpendPacing(ctx.stores.ch, pipeline);
    pipeline.onAccepted((event, written) => pacing.record(event, written));
    return { pipeline, pacing };
  }

  it("holds a serve's expected cost until its own billing event comes, or for 10 minutes", async () => {
    const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(0) });
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    const servedAt = Date.now();
    // Found by the serve time their ids begin with: a and b in the same millisecond, and d's id too.
    const [a, b, c, d] = [newServeId(servedAt), newServeId(servedAt), newServeId(servedAt + 1000), newServeId(servedAt)];
    pacing.served(a, counter, 'pub1', 'CPC', 0.02, servedAt);
    pacing.served(b, counter, 'pub1', 'CPC', 0.02, servedAt);
    pacing.served(c, counter, 'pub2', 'CPC', 0.02, servedAt + 1000);
    expect(counter).toMatchObject({ nanos: 0, monthNanos: 0, lifetimeNanos: 0, outstandingNanos: 0.06 * USD });
    const heldBy = () => Object.fromEntries([...(counter.publisherHolds ?? [])].map(([publisher, hold]) => [publisher, hold.nanos]));
    expect(heldBy()).toEqual({ pub1: 0.04 * USD, pub2: 0.02 * USD });
    // A CPC serve waits for its click, not its impression; and another serve's click is not its own.
    pacing.record(sampleEvent({ serve_id: a, line_item_id: lineItemId, type: 'impression', cost_nanos: 0 }));
    pacing.record(sampleEvent({ serve_id: d, line_item_id: lineItemId, type: 'click', cost_nanos: USD }));
    expect(counter).toMatchObject({ nanos: USD, outstandingNanos: 0.06 * USD });
    // Its click: its cost counts instead of the expected one.
    pacing.record(sampleEvent({ serve_id: a, line_item_id: lineItemId, type: 'click', cost_nanos: USD }));
    expect(counter).toMatchObject({ nanos: 2 * USD, outstandingNanos: 0.04 * USD });
    // An invalid click: nothing will be billed for the serve.
    pacing.record(sampleEvent({ serve_id: b, line_item_id: lineItemId, type: 'click', cost_nanos: 0, ivt: 'datacenter' }));
    expect(counter).toMatchObject({ nanos: 2 * USD, outstandingNanos: 0.02 * USD });
    // A publisher none of whose serves is outstanding is forgotten.
    expect(heldBy()).toEqual({ pub2: 0.02 * USD });
    // c's click never comes: its hold ends 10 minutes after its serve, at a sync when no serve comes first.
    await pacing.sync(servedAt + 1000 + 600_000 - 1);
    expect(counter.outstandingNanos).toBe(0.02 * USD);
    await pacing.sync(servedAt + 1000 + 600_000);
    expect(counter.outstandingNanos).toBe(0);
    expect(counter.publisherHolds).toBeUndefined();
  });

  it("starts a new UTC day's spend with its first event, without waiting for a sync", () => {
    // Only Date is faked: no sync runs here, as when ClickHouse cannot be reached over midnight.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-01T23:59:59.000Z'));
      const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(0) });
      const lineItemId = randomUUID();
      const counter = pacing.counterFor(lineItemId);
      pacing.record(sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 5000, event_time: Date.now() }));
      expect(counter.nanos).toBe(5000);
      vi.setSystemTime(new Date('2026-03-02T00:00:01.000Z'));
      pacing.record(sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 700, event_time: Date.now() }));
      expect(counter.nanos).toBe(700);
      expect(counter.lifetimeNanos).toBe(5700);
      // A late event of the day before counts for the lifetime only.
      pacing.record(sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 40, event_time: Date.parse('2026-03-01T23:00:00.000Z') }));
      expect(counter.nanos).toBe(700);
      expect(counter.lifetimeNanos).toBe(5740);
    } finally {
      vi.useRealTimers();
    }
  });

  it("counts this UTC month's spend, every day of it, and starts a new month at zero", async () => {
    // Fixed days of the month before last (inside the events' TTL): sync is told the time, record is
    // told the date (only Date is faked, as no sync runs then).
    const now = new Date();
    const month = (day: number, hour = 12) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, day, hour);
    const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(0) });
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    const spend = (nanos: number, at: number) => sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: nanos, event_time: at });
    await insertEvents(ctx, [spend(1, month(0)), spend(20, month(1, 0)), spend(300, month(14)), spend(4000, month(20, 1)), spend(50_000, month(21))]);
    await pacing.sync(month(20));
    // The day before the 1st is last month's; the 21st is still to come.
    expect(counter).toEqual({ nanos: 4000, monthNanos: 4320, lifetimeNanos: 54_321, outstandingNanos: 0 });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(month(20, 13));
      // A late event of an earlier day of the month counts for the month, not for today.
      pacing.record(spend(600_000, month(2)));
      expect(counter).toEqual({ nanos: 4000, monthNanos: 604_320, lifetimeNanos: 654_321, outstandingNanos: 0 });
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1, 0, 0, 1);
      vi.setSystemTime(nextMonth);
      pacing.record(spend(7_000_000, nextMonth));
      expect(counter).toEqual({ nanos: 7_000_000, monthNanos: 7_000_000, lifetimeNanos: 7_654_321, outstandingNanos: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps today's spend when the clock steps back across midnight and forward again", async () => {
    // A VM restore or an NTP step: the service's clock goes back to yesterday for a minute.
    const now = new Date();
    const at = (day: number, hour: number, minute: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, day, hour, minute);
    const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(0) });
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    const spend = (nanos: number, time: number) => sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: nanos, event_time: time });
    await insertEvents(ctx, [spend(100, at(9, 12, 0)), spend(2000, at(10, 0, 1))]);
    await pacing.sync(at(10, 0, 5));
    expect(counter.nanos).toBe(2000);
    await pacing.sync(at(9, 23, 59));
    expect(counter.nanos).toBe(2000);
    // The sync after the step forward: no moment, not even while it reads ClickHouse, at which
    // the 10th's spend is forgotten (a serve judged then would see its daily budget unspent).
    const forward = pacing.sync(at(10, 0, 7));
    expect(counter.nanos).toBe(2000);
    await forward;
    expect(counter.nanos).toBe(2000);
  });

  it('starts a new UTC day and month at the first sync after midnight, even one that cannot read ClickHouse', async () => {
    const now = new Date();
    const lastDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 0, 23, 59);
    const client = createClient({ url: `http://127.0.0.1:${await freePort()}`, request_timeout: 2000 });
    const unreachable = { client } as unknown as ClickHouse;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(lastDay);
      const pacing = new SpendPacing(unreachable, { readBetweenWrites: (read) => read(0) });
      const lineItemId = randomUUID();
      const counter = pacing.counterFor(lineItemId);
      pacing.record(sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 5000, event_time: lastDay }));
      expect(counter).toEqual({ nanos: 5000, monthNanos: 5000, lifetimeNanos: 5000, outstandingNanos: 0 });
      const firstDay = lastDay + 120_000;
      vi.setSystemTime(firstDay);
      await expect(pacing.sync(firstDay)).rejects.toThrow();
      // Last month's spend no longer holds the line item back nor unbills the new month's events.
      expect(counter).toEqual({ nanos: 0, monthNanos: 0, lifetimeNanos: 5000, outstandingNanos: 0 });
    } finally {
      vi.useRealTimers();
      await client.close();
    }
  });

  it("judges the first events and serves of a UTC day and month by the new day's spend, before any sync or billed event (try38 T3)", () => {
    // Only Date is faked, and no sync runs: the first second of a day, before the pacing sync's tick.
    const now = new Date();
    const lastDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 0, 23, 59, 59);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(lastDay);
      const { pacing, ceiling, retired } = billingAsServingWiresIt(lastDay);
      const { lineItemId, counter } = retired({ budgetNanos: USD, lifetimeBudgetNanos: Infinity });
      const click = (nanos: number, at: number) => sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: nanos, event_time: at });
      // The day at its ceiling (twice the daily budget of 1 USD), the month past its own (30.4 times).
      pacing.record(click(2 * USD, lastDay));
      pacing.record(click(29 * USD, lastDay - 20 * 86_400_000));
      expect(counter).toMatchObject({ nanos: 2 * USD, monthNanos: 31 * USD });
      const lastSecond = click(USD, lastDay + 500);
      ceiling.judge(lastSecond, lastDay + 500);
      expect(lastSecond).toMatchObject({ unbilled: 'over_monthly_budget', cost_nanos: 0 });
      // Midnight, and the month's end, pass: the new day's first click is billed.
      vi.setSystemTime(lastDay + 1100);
      const firstSecond = click(USD, lastDay + 1100);
      ceiling.judge(firstSecond, lastDay + 1100);
      expect(firstSecond).toMatchObject({ unbilled: '', cost_nanos: USD });
      expect(counter).toEqual({ nanos: 0, monthNanos: 0, lifetimeNanos: 31 * USD, outstandingNanos: 0 });
      pacing.record(firstSecond);
      expect(counter).toMatchObject({ nanos: USD, monthNanos: USD });
      // A serve rolls the day the same way (servingRoutes); never back with a clock stepped back.
      pacing.roll(lastDay);
      expect(counter).toMatchObject({ nanos: USD, monthNanos: USD });
      pacing.roll(lastDay + 1000 + 86_400_000);
      expect(counter).toMatchObject({ nanos: 0, monthNanos: USD });
    } finally {
      vi.useRealTimers();
    }
  });

  it("holds a late conversion being written against its own day, never against today's daily ceiling (rev42 R5)", () => {
    const now = Date.now();
    const { pacing, ceiling, retired } = billingAsServingWiresIt(now);
    const { lineItemId, counter } = retired({ budgetNanos: 10 * USD, lifetimeBudgetNanos: Infinity });
    const conversion = (nanos: number, at: number) => sampleEvent({ line_item_id: lineItemId, type: 'conversion', cost_nanos: nanos, event_time: at });
    // Today 16 of its 20 USD ceiling (2 x 10) spent; yesterday's conversion of 4 USD is being written (held).
    pacing.record(conversion(16 * USD, now));
    const late = conversion(4 * USD, now - 86_400_000);
    const held = ceiling.hold(late);
    // Today's conversion of 4 USD fits today's ceiling (16 + 4 = 20): yesterday's is not today's spend.
    const today = conversion(4 * USD, now);
    ceiling.judge(today, now);
    expect(today).toMatchObject({ unbilled: '', cost_nanos: 4 * USD });
    // Held spend still counts where it belongs: a lifetime budget sees it whatever its day.
    ceiling.release(late, held);
    const { lineItemId: capped } = retired({ budgetNanos: 10 * USD, lifetimeBudgetNanos: 6 * USD });
    const cappedLate = sampleEvent({ line_item_id: capped, type: 'conversion', cost_nanos: 4 * USD, event_time: now - 86_400_000 });
    ceiling.hold(cappedLate);
    const cappedToday = sampleEvent({ line_item_id: capped, type: 'conversion', cost_nanos: 4 * USD, event_time: now });
    ceiling.judge(cappedToday, now);
    expect(cappedToday).toMatchObject({ unbilled: 'over_lifetime_budget', cost_nanos: 0 });
  });

  it('keeps the spend of a day that began while a sync read the day before', async () => {
    const now = new Date();
    const lastHour = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 10, 23, 59, 59);
    let reading: (() => void) | undefined;
    const paused = new Promise<void>((resolve) => (reading = resolve));
    const pacing = new SpendPacing(ctx.stores.ch, {
      readBetweenWrites: async (read) => {
        await paused;
        return read(0);
      },
    });
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    await insertEvents(ctx, [sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 3000, event_time: lastHour })]);
    const sync = pacing.sync(lastHour + 500);
    // A serve in the new day starts it while the sync reads the 10th.
    pacing.roll(lastHour + 1500);
    reading!();
    await sync;
    expect(counter).toEqual({ nanos: 0, monthNanos: 0, lifetimeNanos: 3000, outstandingNanos: 0 });
  });

  it('counts an accepted event at once, and once only before and after it reaches ClickHouse', async () => {
    const { pipeline, pacing } = await pipelineWithPacing();
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    const spend = (nanos: number) => sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: nanos });

    pipeline.accept([spend(1000), spend(2000), sampleEvent({ line_item_id: lineItemId, ivt: 'bot', cost_nanos: 0 })]);
    expect(counter.nanos).toBe(3000);
    await pacing.sync();
    expect(counter.nanos).toBe(3000);

    await pipeline.flush();
    await pacing.sync();
    expect(counter.nanos).toBe(3000);

    pipeline.accept([spend(500)]);
    expect(counter.nanos).toBe(3500);
    await pacing.sync();
    expect(counter.nanos).toBe(3500);
    await pipeline.flush();
    await pacing.sync();
    expect(counter.nanos).toBe(3500);
    await pipeline.close();
  });

  it('counts once the events whose write to ClickHouse is under way while a sync reads', async () => {
    const { pipeline, pacing } = await pipelineWithPacing();
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    // A view after daily_stats_v1's that takes a second per insert: the rows are in ClickHouse
    // before the insert is acknowledged, as with a slow answer from a server.
    const ch = ctx.stores.ch.client;
    await ch.command({ query: 'CREATE TABLE slow_answer_sink (n UInt8) ENGINE = Null' });
    await ch.command({ query: 'CREATE MATERIALIZED VIEW slow_answer_v TO slow_answer_sink AS SELECT toUInt8(sleep(1)) AS n FROM events_v1' });
    try {
      pipeline.accept([sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 1000 })]);
      const flushed = pipeline.flush();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await pacing.sync();
      expect(counter.nanos).toBe(1000);
      await flushed;
      await pacing.sync();
      expect(counter.nanos).toBe(1000);
    } finally {
      await ch.command({ query: 'DROP VIEW slow_answer_v' });
      await ch.command({ query: 'DROP TABLE slow_answer_sink' });
      await pipeline.close();
    }
  });

  it('counts a conversion written at once and a spooled event before it once each', async () => {
    const { pipeline, pacing } = await pipelineWithPacing();
    const lineItemId = randomUUID();
    const counter = pacing.counterFor(lineItemId);
    pipeline.accept([sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 1000 })]);
    const conversion = sampleEvent({ line_item_id: lineItemId, type: 'conversion', cost_nanos: 5000 });
    await pipeline.writeNow([conversion], `conversion:${conversion.event_id}`);
    expect(counter.nanos).toBe(6000);
    // The click is still only spooled, the conversion already in ClickHouse.
    await pacing.sync();
    expect(counter.nanos).toBe(6000);
    await pipeline.flush();
    await pacing.sync();
    expect(counter.nanos).toBe(6000);
    await pipeline.close();
  });

  it("adds up every instance's spend through ClickHouse", async () => {
    const first = await pipelineWithPacing();
    const second = await pipelineWithPacing();
    const lineItemId = randomUUID();
    const [firstCounter, secondCounter] = [first.pacing.counterFor(lineItemId), second.pacing.counterFor(lineItemId)];
    first.pipeline.accept([sampleEvent({ line_item_id: lineItemId, cost_nanos: 700 })]);
    second.pipeline.accept([sampleEvent({ line_item_id: lineItemId, cost_nanos: 300 })]);
    await first.pipeline.flush();
    expect([firstCounter.nanos, secondCounter.nanos]).toEqual([700, 300]);
    await Promise.all([first.pacing.sync(), second.pacing.sync()]);
    // The first instance's event is in ClickHouse; the second's is still only local to it.
    expect([firstCounter.nanos, secondCounter.nanos]).toEqual([700, 1000]);
    await second.pipeline.flush();
    await Promise.all([first.pacing.sync(), second.pacing.sync()]);
    expect([firstCounter.nanos, secondCounter.nanos]).toEqual([1000, 1000]);
    await Promise.all([first.pipeline.close(), second.pipeline.close()]);
  });
});


describe('pacing: the check of repeats a judgement over a spend ceiling waits for', () => {
  type Gate = (read: (unwritten: number) => Promise<unknown>) => Promise<unknown>;

  /**
   * Spend pacing and the billing ceiling wired as serving and tracking wire them, over `gate` (the
   * pipeline's readBetweenWrites), with a line item of a daily budget of 5 USD (a ceiling of 10 USD a
   * day) and its 1 USD impressions. `timeoutMs` is SERVE_LOOKUP_TIMEOUT_MS.
   */
  function wired(ch: ClickHouse, gate: Gate, timeoutMs = 10_000) {
    const pacing = new SpendPacing(ch, { readBetweenWrites: gate as never });
    const destinations = new IndexedDestinations(3_600_000);
    destinations.rollCountersWith((nowMs) => pacing.roll(nowMs));
    destinations.readSpendWith((lineItems, fromDay) => pacing.billedSpend(lineItems, fromDay));
    destinations.settleRepeatsWith(pacing);
    const ceiling = new BillingCeiling(
      (lineItemId, nowMs) => destinations.billedLineItem(lineItemId, nowMs),
      (lineItems, fromDay) => destinations.billedSpend(lineItems, fromDay),
      {
        hasUnsettledSpend: (lineItemId) => destinations.hasUnsettledSpend(lineItemId),
        settleRepeats: (lineItemId, campaignId, serveIds) => destinations.settleRepeats(lineItemId, campaignId, serveIds),
        countersDay: () => destinations.countersDay(),
        timeoutMs,
      },
    );
    const [lineItemId, campaignId] = [randomUUID(), randomUUID()];
    const counter = pacing.counterFor(lineItemId);
    destinations.keepRetired(lineItemId, Date.now(), () => ({ budgetNanos: 5 * USD, lifetimeBudgetNanos: Infinity, spend: counter, frequencyCap: null }));
    const event = (at: number, type: 'impression' | 'conversion' = 'impression') => sampleEvent({ line_item_id: lineItemId, campaign_id: campaignId, type, cost_nanos: USD, event_time: at });
    /** An impression of now, judged over the daily ceiling. */
    const judged = () => {
      const pixel = event(Date.now());
      ceiling.judge(pixel, pixel.event_time);
      expect(pixel).toMatchObject({ unbilled: 'over_daily_budget', cost_nanos: 0 });
      return pixel;
    };
    return { pacing, ceiling, counter, event, judged, lineItemId, campaignId };
  }

  /** 23:59:59.900 UTC yesterday: an arrival whose check or lookups end after midnight. */
  const lastMomentOfYesterday = () => Math.floor(Date.now() / 86_400_000) * 86_400_000 - 100;

  it("keeps a pixel's first verdict when a serve moved the counters to the next UTC day while its check ran (rev43 R1)", async () => {
    const arrival = lastMomentOfYesterday();
    let serveAtMidnight = () => {};
    // The day's 10 impressions below are not in ClickHouse yet; a serve after midnight rolls the counters while the check reads.
    const { pacing, ceiling, counter, event } = wired(ctx.stores.ch, async (read) => {
      serveAtMidnight();
      return read(10);
    });
    serveAtMidnight = () => pacing.roll(Date.now());
    pacing.roll(arrival);
    for (let i = 0; i < 10; i++) pacing.record(event(arrival - 1000));
    expect(counter.nanos).toBe(10 * USD);
    const pixel = event(arrival);
    ceiling.judge(pixel, arrival);
    expect(pixel).toMatchObject({ unbilled: 'over_daily_budget', cost_nanos: 0 });

    // ClickHouse counted none of the serves: nothing to take out, the day's ceiling is still reached.
    expect(await ceiling.settleRepeats(pixel, Date.now())).toEqual(new Map());
    expect(pacing.countersDay()).toBe(Math.floor(Date.now() / 86_400_000));
    expect(ceiling.judgeAgain(pixel, USD, arrival)).toBe(false);
    expect(pixel).toMatchObject({ unbilled: 'over_daily_budget', cost_nanos: 0 });
  });

  it("sends a conversion to its line item's late turn when the counters moved past its day while its step awaited, and judges it there by its own day's spend", async () => {
    const arrival = lastMomentOfYesterday();
    const { pacing, ceiling, event } = wired(ctx.stores.ch, (read) => read(10));
    pacing.roll(arrival);
    for (let i = 0; i < 10; i++) pacing.record(event(arrival - 1000));
    const conversion = event(arrival, 'conversion');
    // Judged at arrival by the counters (no late turn); a serve after midnight rolls them while its step awaits its lookups and lock.
    expect(await ceiling.lateTurn(conversion, arrival, undefined, async () => {
      pacing.roll(Date.now());
      return ceiling.judgeAndStore(conversion, arrival, undefined, undefined, () => 'stored').catch((error: unknown) => error);
    })).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/^the conversion's UTC day ended while it was judged; retry/) });
    // Its retry, after midnight, is late: judged by yesterday's spend, at the ceiling.
    const retried = { ...conversion, unbilled: '' as const, cost_nanos: USD };
    const now = Date.now();
    expect(await ceiling.lateTurn(retried, now, undefined, (turn) => ceiling.judgeAndStore(retried, now, undefined, turn, () => 'stored'))).toBe('stored');
    expect(retried).toMatchObject({ unbilled: 'over_daily_budget', cost_nanos: 0 });
  });

  it("asks one check about the serves of every pixel waiting for it, not only the first one's (rev44 R7)", async () => {
    const { pacing, ceiling, event, judged } = wired(ctx.stores.ch, (read) => read(10));
    const now = Date.now();
    pacing.roll(now);
    for (let i = 0; i < 10; i++) pacing.record(event(now));
    // Two pixels of one burst over the ceiling, whose serves another instance counted.
    const burst = [judged(), judged()];
    await insertEvents(ctx, burst.map((pixel) => ({ ...event(now), serve_id: pixel.serve_id })));
    const answers = await Promise.all(burst.map((pixel) => ceiling.settleRepeats(pixel, Date.now())));
    for (const answer of answers) expect([...answer!.keys()].sort()).toEqual(burst.map((pixel) => pixel.serve_id).sort());
  });

  /**
   * A link tracker wired as tracking wires it, over `ceiling` and a pipeline whose accepted events
   * `pacing` records (wired over the pipeline's readBetweenWrites): each lookup of a serve asks
   * ClickHouse after a serve of now rolled the counters, as one that straddles midnight does.
   */
  async function trackerOverMidnight(ch: ClickHouse) {
    const pipeline = await createClickHouseEventPipeline({
      config: { DATA_DIR: tempDirectory('adsvc-late-click-'), EVENT_FLUSH_ROWS: 1_000_000, EVENT_FLUSH_INTERVAL_MS: 3_600_000, EVENT_BUFFER_MAX_ROWS: 1_000_000, EVENT_SPOOL_FSYNC: false },
      ch: ctx.stores.ch,
      log: ctx.app.log,
    });
    const wiring = wired(ch, (read) => pipeline.readBetweenWrites(read));
    const { pacing, ceiling, lineItemId, campaignId } = wiring;
    pipeline.onAccepted((event, written) => pacing.record(event, written));
    const history = new ServeHistoryLookup(
      (serveIds) => {
        pacing.roll(Date.now());
        return findServeHistories(ctx.stores.ch, serveIds);
      },
      { windowMs: 5, timeoutMs: 10_000 },
    );
    const tracker = createLinkTracker({
      events: pipeline,
      ledger: new ServeLedger(1000),
      history,
      ceiling,
      log: ctx.app.log,
      fetchMetadataExpected: false,
      impressionVelocity: new ImpressionVelocity({ per10s: 1000, per10min: 1000, blockPer10s: 1000, blockPer10min: 1000 }),
      placementBlocks: new PlacementBlocks({ per10s: 1000, per10min: 1000, maxClickThrough: 1 }),
    });
    const publisherId = randomUUID();
    let readers = 0;
    /** A CPC click (1 USD) at `at` of a serve whose valid impression ClickHouse counted a minute before, unknown to the tracker. */
    const click = async (at: number) => {
      const impression = sampleEvent({ line_item_id: lineItemId, campaign_id: campaignId, publisher_id: publisherId, cost_nanos: 0, event_time: at - 60_000 });
      await insertEvents(ctx, [impression]);
      const claims = { s: impression.serve_id, c: campaignId, l: lineItemId, r: impression.creative_id, p: impression.placement_id, u: publisherId, m: 'CPC' as const, n: USD, e: Math.ceil(at / 1000) + 3600, t: at - 61_000 };
      readers += 1;
      const request = {
        visitor: { ip: { ip: `73.162.201.${readers}`, ipClass: 'public' as const, network: '', ivt: '' as const }, userAgent: 'Mozilla/5.0', ivt: '' as const },
        fetch: { dest: '', mode: '', site: '', prefetch: false, user: false },
        serverSide: '' as const,
        clientHints: '' as const,
        clientHintsSent: false,
      };
      return tracker.trackClick({ claims, ivt: '' }, request, at);
    };
    return { ...wiring, pipeline, click };
  }

  it("judges a click whose serve's lookup straddled midnight by its own day's billed spend, not the new day's counters", async () => {
    const arrival = lastMomentOfYesterday();
    const { pacing, pipeline, counter, event, click, lineItemId, campaignId } = await trackerOverMidnight(ctx.stores.ch);
    try {
      pacing.roll(arrival);
      // Yesterday's 9 USD of its 10 USD ceiling, not in ClickHouse yet.
      pipeline.accept(Array.from({ length: 9 }, () => event(arrival - 1000)));
      expect(counter.nanos).toBe(9 * USD);
      const first = await click(arrival);
      const second = await click(arrival);
      expect(pacing.countersDay()).toBe(Math.floor(Date.now() / 86_400_000));
      // The first fits yesterday's ceiling, the second does not: today's empty counters never judged them.
      expect([first, second].map((stored) => [stored.ivt, stored.cost_nanos, stored.unbilled])).toEqual([
        ['', USD, ''],
        ['', 0, 'over_daily_budget'],
      ]);
      const day = Math.floor(arrival / 86_400_000);
      expect((await pacing.billedSpend(new Map([[lineItemId, campaignId]]), day)).get(lineItemId)!.days.get(day)).toBe(10 * USD);
    } finally {
      await pipeline.close();
    }
  });

  it("stores such a click over the daily ceiling, unbilled, when its day's spend cannot be read: kept and redirected, never billed unjudged", async () => {
    const client = createClient({ url: `http://127.0.0.1:${await freePort()}`, request_timeout: 2000 });
    const { pacing, pipeline, click } = await trackerOverMidnight({ client } as unknown as ClickHouse);
    try {
      const arrival = lastMomentOfYesterday();
      pacing.roll(arrival);
      const stored = await click(arrival);
      expect([stored.ivt, stored.cost_nanos, stored.unbilled]).toEqual(['', 0, 'over_daily_budget']);
    } finally {
      await pipeline.close();
      await client.close();
    }
  });

  it('waits for a check ClickHouse does not answer one timeout at most, and starts no other until its read ends and a timeout passed (rev43 R2)', async () => {
    let checks = 0;
    let fail: (error: Error) => void = () => {};
    // The check's read waits behind a write that hangs (ClickHouse slow), then fails (down).
    const hanging = new Promise<never>((_, reject) => (fail = reject));
    hanging.catch(() => undefined);
    const { pacing, ceiling, event, judged } = wired(
      ctx.stores.ch,
      async (read) => {
        checks += 1;
        await hanging;
        return read(10);
      },
      1000,
    );
    const now = Date.now();
    pacing.roll(now);
    for (let i = 0; i < 10; i++) pacing.record(event(now));

    const first = judged();
    const check = ceiling.settleRepeats(first, Date.now());
    expect(check).toBeDefined();
    // Judged meanwhile: waits for the same check.
    const meanwhile = ceiling.settleRepeats(judged(), Date.now());
    expect(meanwhile).toBeDefined();
    // Not answered within the timeout: the first verdict stands.
    expect(await check).toBeUndefined();
    expect(await meanwhile).toBeUndefined();
    // A pixel that arrived a timeout ago waits no more, whatever round it is in.
    expect(ceiling.settleRepeats(first, Date.now() - 1000)).toBeUndefined();
    // While the read still hangs, no pixel waits and no new check queues behind it.
    expect(ceiling.settleRepeats(judged(), Date.now())).toBeUndefined();
    fail(new Error('ClickHouse is down'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ceiling.settleRepeats(judged(), Date.now())).toBeUndefined();
    expect(checks).toBe(1);
    // A timeout after the failure, one new check.
    await eventually(async () => (ceiling.settleRepeats(judged(), Date.now()) === undefined ? undefined : true), 'a new check a timeout after the failure');
    await eventually(async () => (checks === 2 ? true : undefined), 'the new check to read');
  });

  it('costs a ClickHouse that refuses every query one check a timeout for any number of pixels over the ceiling, each answered as judged (rev43 R2)', async () => {
    const client = createClient({ url: `http://127.0.0.1:${await freePort()}`, request_timeout: 2000 });
    const unreachable = { client } as unknown as ClickHouse;
    let checks = 0;
    try {
      const { pacing, ceiling, event, judged } = wired(unreachable, (read) => {
        checks += 1;
        return read(10);
      });
      const now = Date.now();
      pacing.roll(now);
      for (let i = 0; i < 10; i++) pacing.record(event(now));
      for (let i = 0; i < 20; i++) {
        const pixel = judged();
        expect(await ceiling.settleRepeats(pixel, Date.now())).toBeUndefined();
        expect(pixel).toMatchObject({ unbilled: 'over_daily_budget', cost_nanos: 0 });
      }
      expect(checks).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('takes out of the unwritten spend a repeat of a serve ClickHouse counted, not an entry ClickHouse holds under its own event id (a crash\'s segment: rev43 R5)', async () => {
    const { pacing, counter, event, lineItemId, campaignId } = wired(ctx.stores.ch, (read) => read(2));
    const now = Date.now();
    pacing.roll(now);
    // ClickHouse took the segment of `recovered` just before a crash; another instance counted `repeated`'s serve.
    const recovered = event(now);
    const elsewhere = event(now);
    await insertEvents(ctx, [recovered, elsewhere]);
    const repeated = { ...event(now), serve_id: elsewhere.serve_id };
    pacing.record(recovered);
    pacing.record(repeated);
    const histories = await pacing.settleRepeats(lineItemId, campaignId, []);
    expect([...histories.keys()].sort()).toEqual([recovered.serve_id, elsewhere.serve_id].sort());
    // ClickHouse's 2 USD, and `recovered` once more until its replay completes what the crash left: the repeat costs nothing.
    expect(counter.nanos).toBe(3 * USD);
  });
});
