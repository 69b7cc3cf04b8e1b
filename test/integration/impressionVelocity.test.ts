import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlacement } from '../helpers/factories.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { BROWSER_UA, fromAddress, readerAddress, rollupOf, serveClaims, signedToken, trackedLineItem, waitForEvents, waitPastClickDelay } from '../helpers/trackingFixtures.js';

const IMAGE_LOAD = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
const NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };
const IMPRESSION_PRICE = 4_000_000;
const CLICK_PRICE = 500_000_000;

let ctx: TestContext;

/**
 * Waits, when less than 6 s of the current 10-second bucket are left, for the next one to begin: the
 * 10 s limit is a sliding-window estimate (src/tracking/windowCounts.ts) that is exact within a
 * bucket and lets a burst crossing a bucket's end bill one or two more (session 45's final CI failed so).
 */
async function inOneTenSecondBucket(): Promise<void> {
  const left = 10_000 - (Date.now() % 10_000);
  if (left < 6_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

beforeAll(async () => {
  // The block's 10-minute limit lowered from 24,000 (a test's few pixels reach it); each test's readers are in /24s of their own.
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1', IMPRESSION_BLOCK_VELOCITY_10MIN: '40' });
});

afterAll(async () => {
  await ctx.close();
});

describe("impression velocity: billable impressions of a publisher's placements per network", () => {
  it("bills 30 of 40 tCPM pixels of one placement fired from one address within seconds, stores the rest as impression_velocity; another publisher's placement and another address are billed", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 4 });
    const other = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 4 });
    const home = readerAddress();
    // Every pixel is a serve of its own, a browser's user agent and image-load Fetch Metadata: only their pace tells.
    const pixel = async (target: typeof item, address: string) => {
      const response = await fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(target, 'tCPM', IMPRESSION_PRICE))}`, address, BROWSER_UA, IMAGE_LOAD);
      expect([response.statusCode, response.headers['content-type']]).toEqual([200, 'image/gif']);
    };
    await inOneTenSecondBucket();
    for (let n = 0; n < 40; n++) await pixel(item, home);
    await pixel(item, readerAddress());
    await pixel(other, home);

    const events = await waitForEvents(ctx, item.lineItemId, 41);
    expect(events.filter((event) => event.ivt === '')).toHaveLength(31);
    const refused = events.filter((event) => event.ivt === 'impression_velocity');
    expect(refused).toHaveLength(10);
    expect(refused.every((event) => event.ip === home && Number(event.cost_nanos) === 0)).toBe(true);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 31, spend_nanos: 31 * IMPRESSION_PRICE });
    expect((await waitForEvents(ctx, other.lineItemId, 1)).map((event) => event.ivt)).toEqual(['']);

    const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('adsvc_events_invalid_total{type="impression",reason="impression_velocity"} 10\n');
  });

  it("counts a publisher's placements together: 40 pixels of two of its placements, 20 each, from one address within seconds bill 30 (try41 F1: 40)", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 4 });
    const secondPlacement = (await createPlacement(ctx, item.publisherId)).id;
    const home = readerAddress();
    await inOneTenSecondBucket();
    for (let n = 0; n < 40; n++) {
      const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE, n % 2 === 0 ? {} : { p: secondPlacement }));
      expect((await fromAddress(ctx, `/v1/t/i/${token}`, home, BROWSER_UA, IMAGE_LOAD)).statusCode).toBe(200);
    }
    const events = await waitForEvents(ctx, item.lineItemId, 40);
    expect(events.filter((event) => event.ivt === '')).toHaveLength(30);
    expect(events.filter((event) => event.ivt === 'impression_velocity')).toHaveLength(10);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 30, spend_nanos: 30 * IMPRESSION_PRICE });
  });

  it("caps a publisher's tCPM pixels from one /24, one address after the other: 40 of 60 billed, the rest impression_velocity; another publisher's readers in the block billed (try41 F6: 60)", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 4 });
    const other = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 4 });
    const pixel = async (target: typeof item, address: string) =>
      expect((await fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(target, 'tCPM', IMPRESSION_PRICE))}`, address, BROWSER_UA, IMAGE_LOAD)).statusCode).toBe(200);
    // Each address fires one pixel: far under its own limit (30 in 10 s).
    for (let n = 1; n <= 60; n++) await pixel(item, `73.161.200.${n}`);
    for (let n = 101; n <= 110; n++) await pixel(other, `73.161.200.${n}`);

    const events = await waitForEvents(ctx, item.lineItemId, 60);
    // 40, or 41 when the pixels straddle a 10-minute bucket's start (the sliding-window estimate, windowCounts.ts).
    const billed = events.filter((event) => event.ivt === '').length;
    expect(billed === 40 || billed === 41, String(billed)).toBe(true);
    expect(events.filter((event) => event.ivt === 'impression_velocity')).toHaveLength(60 - billed);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: billed, spend_nanos: billed * IMPRESSION_PRICE });
    expect((await waitForEvents(ctx, other.lineItemId, 10)).map((event) => event.ivt)).toEqual(Array.from({ length: 10 }, () => ''));
  });

  it("never judges a CPC serve's impression (it costs nothing): 40 from one address within seconds stay valid, and the 40th serve's click is billed", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.5 });
    const home = readerAddress();
    const tokens = Array.from({ length: 40 }, () => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const token of tokens) expect((await fromAddress(ctx, `/v1/t/i/${token}`, home, BROWSER_UA, IMAGE_LOAD)).statusCode).toBe(200);
    await waitPastClickDelay(Date.now());
    expect((await fromAddress(ctx, `/v1/t/c/${tokens.at(-1)!}`, home, BROWSER_UA, NAVIGATION)).statusCode).toBe(302);

    const events = await waitForEvents(ctx, item.lineItemId, 41);
    expect(events.filter((event) => event.type === 'impression').map((event) => event.ivt)).toEqual(Array.from({ length: 40 }, () => ''));
    expect(events.filter((event) => event.type === 'click').map((event) => [event.ivt, Number(event.cost_nanos)])).toEqual([['', CLICK_PRICE]]);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 40, clicks: 1, spend_nanos: CLICK_PRICE });
  });
});
