import { randomUUID } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { certifyPlacement, createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { firePixel, eventuallyServed, insertEvents, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { SpendPacing } from '../../src/serving/spendPacing.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { closedPort } from '../helpers/closedPort.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

// The test's pixel requests come from 127.0.0.1: count them like a browser's.
const env = { IVT_ALLOW_PRIVATE_IPS: 'true' };

beforeAll(async () => {
  ctx = await startTestApp(env);
  const created = await createAdvertiser(ctx);
  advertiser = { key: created.key, userId: created.user.id };
  publisher = await createPublisher(ctx);
});
afterAll(async () => {
  await ctx.close();
});

const USD = 1e9;

describe('pacing: daily budgets', () => {
  /**
   * A line item that a test spends in full through ClickHouse alongside the rows it is about: once
   * the witness stops being served, a pacing sync has read those rows too. Tests wait on that
   * rather than on a guessed number of sync intervals. CPC, so it serves on any placement.
   */
  async function syncWitness(placement: string) {
    const word = uniqueWord();
    const witness = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 50 },
      budget: { daily: 20, currency: 'USD' },
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

  async function cappedSetup() {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await certifyPlacement(ctx, placement);
    const fallback = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 5 }, targeting: { keywords: { include: [word] } } });
    // 10 USD per impression (tCPM 10,000) against a 15 USD daily budget: the second impression exhausts it.
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 10_000 },
      budget: { daily: 15, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, capped.lineItemId);
    return { placement, capped, fallback, body };
  }

  it('stops serving a line item as soon as its tracked spend today reaches the daily budget, and after a restart', async () => {
    const { capped, fallback, body } = await cappedSetup();
    const first = await serve(ctx, publisher.token, body);
    expect(servedLineItem(ctx, first)).toBe(capped.lineItemId);
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
    const { placement, capped, fallback, body } = await cappedSetup();
    const impression = () =>
      sampleEvent({ campaign_id: capped.campaignId, line_item_id: capped.lineItemId, placement_id: placement, publisher_id: publisher.id, cost_nanos: 10 * USD });
    const witness = await syncWitness(placement);
    await insertEvents(ctx, [impression(), witness.spendsItsBudget]);
    await witness.synced();
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).toBe(capped.lineItemId);
    await insertEvents(ctx, [impression()]);
    await eventuallyServed(ctx, publisher.token, body, fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).not.toBe(capped.lineItemId);
  });

  it('does not count invalid traffic or yesterday as spend today', async () => {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 50 },
      budget: { daily: 20, currency: 'USD' },
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
});

describe('pacing: counting each event once', () => {
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
    expect(counter).toEqual({ nanos: 4000, monthNanos: 4320, lifetimeNanos: 54_321 });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(month(20, 13));
      // A late event of an earlier day of the month counts for the month, not for today.
      pacing.record(spend(600_000, month(2)));
      expect(counter).toEqual({ nanos: 4000, monthNanos: 604_320, lifetimeNanos: 654_321 });
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1, 0, 0, 1);
      vi.setSystemTime(nextMonth);
      pacing.record(spend(7_000_000, nextMonth));
      expect(counter).toEqual({ nanos: 7_000_000, monthNanos: 7_000_000, lifetimeNanos: 7_654_321 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('starts a new UTC day and month at the first sync after midnight, even one that cannot read ClickHouse', async () => {
    const now = new Date();
    const lastDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 0, 23, 59);
    const client = createClient({ url: `http://127.0.0.1:${await closedPort()}`, request_timeout: 2000 });
    const unreachable = { client } as unknown as ClickHouse;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(lastDay);
      const pacing = new SpendPacing(unreachable, { readBetweenWrites: (read) => read(0) });
      const lineItemId = randomUUID();
      const counter = pacing.counterFor(lineItemId);
      pacing.record(sampleEvent({ line_item_id: lineItemId, type: 'click', cost_nanos: 5000, event_time: lastDay }));
      expect(counter).toEqual({ nanos: 5000, monthNanos: 5000, lifetimeNanos: 5000 });
      const firstDay = lastDay + 120_000;
      vi.setSystemTime(firstDay);
      await expect(pacing.sync(firstDay)).rejects.toThrow();
      // Last month's spend no longer holds the line item back nor unbills the new month's events.
      expect(counter).toEqual({ nanos: 0, monthNanos: 0, lifetimeNanos: 5000 });
    } finally {
      vi.useRealTimers();
      await client.close();
    }
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

