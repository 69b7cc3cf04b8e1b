import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { fromAddress, rollupOf, serveClaims, signedToken, trackedLineItem, waitForEvents, waitPastClickDelay } from '../helpers/trackingFixtures.js';

// CPC 0.40 USD: 400,000,000 nano-USD per click.
const CLICK_PRICE = 400_000_000;
const NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});

afterAll(async () => {
  await ctx.close();
});

describe('click redirect: one visitor clicking faster than a person can (click_velocity)', () => {
  it('bills 3 of 30 clicks one address and user agent makes in under 2 s, each on its own serve after a valid impression; the rest are click_velocity, still redirected', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const address = '73.162.41.7';
    // 30 serves: their 30 impressions from one address are as many as impression velocity bills in 10 s.
    const tokens = Array.from({ length: 30 }, () => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const token of tokens) expect((await fromAddress(ctx, `/v1/t/i/${token}`, address)).statusCode).toBe(200);
    await waitPastClickDelay(Date.now());
    const started = Date.now();
    for (const token of tokens) expect((await fromAddress(ctx, `/v1/t/c/${token}`, address, undefined, NAVIGATION)).statusCode).toBe(302);
    expect(Date.now() - started).toBeLessThan(10_000);
    const clicks = (await waitForEvents(ctx, item.lineItemId, 60)).filter((event) => event.type === 'click');
    expect(clicks.filter((click) => click.ivt === '')).toHaveLength(3);
    expect(clicks.filter((click) => click.ivt === 'click_velocity').map((click) => click.cost_nanos)).toEqual(Array(27).fill(0));
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 30, clicks: 3, spend_nanos: 3 * CLICK_PRICE });
  });

  it('bills other readers meanwhile: another address, or the same address with another browser', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const flooding = '73.162.41.8';
    const readers: Array<[string, string | undefined]> = [
      ['73.162.41.9', undefined],
      [flooding, 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0'],
    ];
    const flood = Array.from({ length: 6 }, () => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    const honest = readers.map(() => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const token of flood) await fromAddress(ctx, `/v1/t/i/${token}`, flooding);
    for (const [index, [address, userAgent]] of readers.entries()) await fromAddress(ctx, `/v1/t/i/${honest[index]}`, address, userAgent);
    await waitPastClickDelay(Date.now());
    for (const token of flood) await fromAddress(ctx, `/v1/t/c/${token}`, flooding, undefined, NAVIGATION);
    for (const [index, [address, userAgent]] of readers.entries()) await fromAddress(ctx, `/v1/t/c/${honest[index]}`, address, userAgent, NAVIGATION);
    const clicks = (await waitForEvents(ctx, item.lineItemId, 16)).filter((event) => event.type === 'click');
    expect(clicks.filter((click) => click.ivt === '')).toHaveLength(3 + 2);
    expect(clicks.filter((click) => click.ivt === 'click_velocity')).toHaveLength(3);
    expect(clicks.filter((click) => click.ip !== flooding || !click.user_agent.includes('Chrome')).map((click) => click.ivt)).toEqual(['', '']);
  });

  it('bills 6 of 10 clicks from one address that sends a new user agent with each, and 6 of 10 from one IPv6 /56 that also picks another /64 each time', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const senders: Array<(n: number) => [string, string]> = [
      (n) => ['73.162.41.10', browser(n)],
      (n) => [`2003:e1:bf41:${n.toString(16)}::1`, browser(n)],
    ];
    for (const sender of senders) {
      const tokens = Array.from({ length: 10 }, () => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
      for (const [n, token] of tokens.entries()) expect((await fromAddress(ctx, `/v1/t/i/${token}`, ...sender(n))).statusCode).toBe(200);
      await waitPastClickDelay(Date.now());
      for (const [n, token] of tokens.entries()) expect((await fromAddress(ctx, `/v1/t/c/${token}`, ...sender(n), NAVIGATION)).statusCode).toBe(302);
    }
    const clicks = (await waitForEvents(ctx, item.lineItemId, 40)).filter((event) => event.type === 'click');
    expect(new Set(clicks.map((click) => click.user_agent)).size).toBe(10);
    for (const network of ['73.162.41.10', '2003:e1:bf41:']) {
      const ivt = clicks.filter((click) => click.ip.startsWith(network)).map((click) => click.ivt);
      expect([...ivt].sort()).toEqual([...Array<string>(6).fill(''), ...Array<string>(4).fill('click_velocity')]);
    }
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 20, clicks: 12, spend_nanos: 12 * CLICK_PRICE });
  });
});

/** A browser of its own: another build number, as a sender that varies its user agent writes it. */
function browser(n: number): string {
  return `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.${n}.0 Safari/537.36`;
}
