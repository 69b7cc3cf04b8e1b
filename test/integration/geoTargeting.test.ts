import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { claimsOf, eventuallyServed, keywordWithFallback, servableLineItem, serve, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { detailPaths } from '../helpers/errorDetails.js';
import { countryOfAddress } from '../../src/geo/countryOfAddress.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

const COMCAST = '73.0.0.1';
const DEUTSCHE_TELEKOM = '80.128.0.1';
const WARP_IN_BRITAIN = '104.28.200.1';
// The one range the geo data files under AN (the Netherlands Antilles, withdrawn in 2010).
const NETHERLANDS_ANTILLES = '2401:b60:1a10::1';
const IMAGE_LOAD = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
const NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site' };
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

beforeAll(async () => {
  // Pixels come through a proxy in front of the service: trust loopback for x-forwarded-for.
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ TRUST_PROXY: 'loopback' }));
});
afterAll(async () => {
  await ctx.close();
});

describe('geo targeting', () => {
  it('knows the test addresses: Comcast in the US, Deutsche Telekom in Germany, a private one nowhere', () => {
    expect(countryOfAddress(COMCAST)).toBe('US');
    expect(countryOfAddress(DEUTSCHE_TELEKOM)).toBe('DE');
    expect(countryOfAddress('10.1.2.3')).toBeUndefined();
    expect(countryOfAddress(NETHERLANDS_ANTILLES)).toBe('AN');
  });

  it('reads a dotted quad as its IPv4-mapped IPv6 form reads, and refuses what is not an address', () => {
    // Spread over the whole IPv4 space: the dotted quad takes a path of its own, the mapped form ipaddr.js's.
    for (let n = 0; n < 2 ** 32; n += 9_973_451) {
      const quad = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
      expect(countryOfAddress(quad), quad).toBe(countryOfAddress(`::ffff:${quad}`));
    }
    expect(countryOfAddress('255.255.255.255')).toBeUndefined();
    for (const text of ['73.0.0.1.1', '73.0.0.256', '73..0.1', 'x73.0.0.1', '']) expect(countryOfAddress(text), text).toBeUndefined();
  });

  it('stores countries upper case and refuses codes that are not ISO 3166-1 alpha-2, naming each', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [uniqueWord()] } } });
    const refused = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { countries: { include: ['us', 'USA'], exclude: ['XX'] } });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused).sort()).toEqual(['countries.exclude.0', 'countries.include.1']);
    const stored = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { countries: { include: ['us'], exclude: ['de'] } });
    expect(stored.json().data.targeting).toEqual({ countries: { include: ['US'], exclude: ['DE'] } });
  });

  it('refuses region codes that are no country an address is found in (UK, EU, ZZ, withdrawn SU), naming GB for UK; keeps XK and AN', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [uniqueWord()] } } });
    const before = (await call('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.targeting;
    const notCountries = ['uk', 'EU', 'EZ', 'UN', 'ZZ', 'QO', 'SU', 'DD', 'YU', 'XA', 'AC'];
    const refused = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { countries: { include: ['GB', ...notCountries], exclude: ['XK'] } });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused).sort()).toEqual(notCountries.map((_, index) => `countries.include.${index + 1}`).sort());
    const uk = refused.json().error.details.find((detail: { path: string }) => detail.path === 'countries.include.1');
    expect(uk.message).toMatch(/GB/);
    expect((await call('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.targeting).toEqual(before);
    const stored = await call('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { countries: { include: ['gb', 'xk'], exclude: ['an'] } });
    expect(stored.statusCode).toBe(200);
    expect(stored.json().data.targeting).toEqual({ countries: { include: ['GB', 'XK'], exclude: ['AN'] } });
  });

  it("excludes the readers the geo data places in AN from a line item excluding AN, and serves it elsewhere (rev42 R2)", async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const notAn = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] }, countries: { exclude: ['AN'] } } });
    const from = (ip: string) => ({ placement_id: placement, context: { query: word, response: '' }, user: { ip } });
    await eventuallyServed(ctx, publisher.token, from(COMCAST), notAn.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, from(NETHERLANDS_ANTILLES)))).toBe(fallback.lineItemId);
  });

  it('serves a US-only line item to a Comcast address, not to a Deutsche Telekom one nor to an unknown country, and records the country', async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const usOnly = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] }, countries: { include: ['US'] } } });
    const from = (ip?: string) => ({ placement_id: placement, context: { query: word, response: '' }, ...(ip ? { user: { ip } } : {}) });
    await eventuallyServed(ctx, publisher.token, from(COMCAST), usOnly.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, from(DEUTSCHE_TELEKOM)))).toBe(fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, from()))).toBe(fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, from('10.1.2.3')))).toBe(fallback.lineItemId);

    const served = await serve(ctx, publisher.token, from(COMCAST));
    const url = new URL(served.json().ad.tracking.impression_url);
    const pixel = await ctx.app.inject({ method: 'GET', url: url.pathname, headers: { 'user-agent': BROWSER, 'x-forwarded-for': DEUTSCHE_TELEKOM } });
    expect(pixel.statusCode).toBe(200);
    // The event's country is the client address's (the pixel's), not the serve's.
    const country = await eventually(async () => {
      const result = await ctx.stores.ch.client.query({
        query: `SELECT country FROM events_v1 WHERE serve_id = {serve:String}`,
        query_params: { serve: claimsOf(ctx, served).s },
        format: 'JSONEachRow',
      });
      const rows = (await result.json()) as Array<{ country: string }>;
      return rows[0]?.country;
    }, 'the impression in ClickHouse');
    expect(country).toBe('DE');
  });

  it("stores the impression and click of a US-only line item from a German address valid but unbilled (outside_target_country), though the serve claimed a US user.ip; bills those from a US address (try41 F3)", async () => {
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const { word } = await keywordWithFallback(ctx, advertiser);
    // CPC 100 USD: the click is what is billed.
    const usOnly = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] }, countries: { include: ['US'] } } });
    const claimingUs = { placement_id: placement, context: { query: word, response: '' }, user: { ip: COMCAST } };
    await eventuallyServed(ctx, publisher.token, claimingUs, usOnly.lineItemId);
    const abroad = await serve(ctx, publisher.token, claimingUs);
    const inside = await serve(ctx, publisher.token, claimingUs);
    const relayed = await serve(ctx, publisher.token, claimingUs);
    const fire = async (served: typeof abroad, reader: string) => {
      const ad = served.json().ad as { tracking: { impression_url: string; click_url: string } };
      const pixel = await ctx.app.inject({ method: 'GET', url: new URL(ad.tracking.impression_url).pathname, headers: { 'user-agent': BROWSER, 'x-forwarded-for': reader, ...IMAGE_LOAD } });
      expect(pixel.statusCode).toBe(200);
      return new URL(ad.tracking.click_url).pathname;
    };
    const before = await outsideTargetCountryCount();
    const clicks = [await fire(abroad, DEUTSCHE_TELEKOM), await fire(inside, '73.0.0.2')];
    // A privacy relay's egress (Cloudflare WARP, placed in Britain) is the relay's choice of country, not the reader's.
    await fire(relayed, WARP_IN_BRITAIN);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const [n, path] of clicks.entries()) {
      const click = await ctx.app.inject({ method: 'GET', url: path, headers: { 'user-agent': BROWSER, 'x-forwarded-for': n === 0 ? DEUTSCHE_TELEKOM : '73.0.0.2', ...NAVIGATION } });
      expect(click.statusCode).toBe(302);
    }

    const rowsOf = (served: typeof abroad, count = 2) =>
      eventually(async () => {
        const result = await ctx.stores.ch.client.query({
          query: `SELECT type, country, ip_class, ivt, unbilled, toString(cost_nanos) AS cost FROM events_v1 WHERE serve_id = {serve:String} ORDER BY type DESC`,
          query_params: { serve: claimsOf(ctx, served).s },
          format: 'JSONEachRow',
        });
        const rows = (await result.json()) as Array<Record<string, string>>;
        return rows.length === count ? rows : undefined;
      }, "the serve's events in ClickHouse");
    expect(await rowsOf(abroad)).toEqual([
      { type: 'impression', country: 'DE', ip_class: 'public', ivt: '', unbilled: 'outside_target_country', cost: '0' },
      { type: 'click', country: 'DE', ip_class: 'public', ivt: '', unbilled: 'outside_target_country', cost: '0' },
    ]);
    expect(await rowsOf(inside)).toEqual([
      { type: 'impression', country: 'US', ip_class: 'public', ivt: '', unbilled: '', cost: '0' },
      { type: 'click', country: 'US', ip_class: 'public', ivt: '', unbilled: '', cost: String(100 * 1e9) },
    ]);
    expect(await rowsOf(relayed, 1)).toEqual([{ type: 'impression', country: 'GB', ip_class: 'relay', ivt: '', unbilled: '', cost: '0' }]);
    expect((await outsideTargetCountryCount()) - before).toBe(2);
  });
});

/** adsvc_events_unbilled_total{reason="outside_target_country"}: counted once an event is spooled, before its answer. */
async function outsideTargetCountryCount(): Promise<number> {
  const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/^adsvc_events_unbilled_total\{reason="outside_target_country"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
}
