// A measurement, not a test (bench/README.md, "Late conversions"): skipped unless
// ADSVC_MEASURE_LATE_POSTBACK=1. MEASURE_N late conversions of one line item (yesterday's), all at
// once, each retried on 503 (after 100 ms, or after Retry-After with MEASURE_POLITE=1); meanwhile
// another line item's conversions with a conversion_id, one after the other; prints one line each.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { insertEvents, servableLineItem, type Advertiser } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };
const env = { IVT_ALLOW_PRIVATE_IPS: 'true' };
const DAY_MS = 86_400_000;
const N = Number(process.env.MEASURE_N ?? 100);

async function clicks(count: number, firstMs: number) {
  const placement = await createCertifiedPlacement(ctx, publisher.id);
  const tested = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpa', bid_value: 4 }, budget: { daily: 10_000, currency: 'USD', pacing: 'asap' } });
  const { rows } = await ctx.stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [tested.lineItemId]);
  const events = Array.from({ length: count }, (_, i) => {
    const id = randomUUID();
    return sampleEvent({
      ...{ event_id: id, click_id: id, type: 'click', source: 'click', event_time: firstMs + i * 1000 },
      ...{ campaign_id: tested.campaignId, line_item_id: tested.lineItemId, creative_id: rows[0]!.id, placement_id: placement, publisher_id: publisher.id },
      ...{ price_model: 'CPA', cost_nanos: 0, price_nanos: 4e9 },
    });
  });
  await insertEvents(ctx, events);
  return events;
}

function convert(click: { event_id: string; event_time: number }, conversionId: string | undefined) {
  return ctx.app.inject({
    method: 'POST',
    url: '/v1/advertiser/conversions',
    headers: { 'x-api-key': advertiser.key },
    payload: { click_id: click.event_id, occurred_at: new Date(click.event_time + 60_000).toISOString(), ...(conversionId ? { conversion_id: conversionId } : {}) },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(process.env.ADSVC_MEASURE_LATE_POSTBACK === '1')('late postback (measurement)', () => {
  beforeAll(async () => {
    ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher(env));
  });
  afterAll(async () => {
    await ctx.close();
  });
  for (const withIds of [true, false]) {
    it(`measures ${N} late conversions ${withIds ? 'with' : 'without'} conversion_id`, { timeout: 600_000 }, async () => {
      const late = await clicks(N, Math.floor(Date.now() / DAY_MS - 1) * DAY_MS + 12 * 3_600_000);
      const other = await clicks(400, Date.now() - 3_600_000);
      let running = true;
      let late503 = 0;
      let lateOther = 0;
      const started = performance.now();
      const postback = Promise.all(
        late.map(async (click, i) => {
          for (;;) {
            const answer = await convert(click, withIds ? `late-${i}` : undefined);
            if (answer.statusCode === 201) return;
            if (answer.statusCode === 503) late503++;
            else lateOther++;
            await sleep(process.env.MEASURE_POLITE ? Number(answer.headers['retry-after'] ?? 1) * 1000 : 100);
          }
        }),
      ).then(() => {
        running = false;
        return performance.now() - started;
      });
      let sent = 0;
      let other503 = 0;
      const otherTimes: number[] = [];
      while (running && sent < other.length) {
        const t = performance.now();
        const answer = await convert(other[sent]!, `other-${sent}`);
        otherTimes.push(performance.now() - t);
        sent++;
        if (answer.statusCode === 503) other503++;
        else if (answer.statusCode !== 201) throw new Error(answer.body);
      }
      const total = await postback;
      otherTimes.sort((a, b) => a - b);
      console.log(
        `MEASURE polite=${process.env.MEASURE_POLITE ?? ''} backend=${process.env.ADSVC_TEST_DATABASE_URL ? 'server' : 'embedded'} n=${N} ids=${withIds} postback_ms=${Math.round(total)} late_503=${late503} late_other=${lateOther} ` +
          `other_sent=${sent} other_503=${other503} other_p50_ms=${Math.round(otherTimes[Math.floor(otherTimes.length / 2)] ?? 0)} other_max_ms=${Math.round(otherTimes.at(-1) ?? 0)}`,
      );
    });
  }
});
