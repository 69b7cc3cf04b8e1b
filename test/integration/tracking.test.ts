import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import {
  ADDRESSES,
  BOT_UA,
  clickUrl,
  eventsOf,
  fromAddress,
  pixelUrl,
  readerAddress,
  rollupOf,
  serveClaims,
  signedToken,
  trackedLineItem,
  type TrackedLineItem,
  waitForEvents,
  waitPastClickDelay,
} from '../helpers/trackingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { signTrackingToken } from '../../src/tracking/trackingToken.js';

// tCPM 2.50 USD: 2,500,000 nano-USD per impression. CPC 0.40 USD: 400,000,000 nano-USD per click.
const IMPRESSION_PRICE = 2_500_000;
const CLICK_PRICE = 400_000_000;

let ctx: TestContext;
let cpm: TrackedLineItem;
let cpc: TrackedLineItem;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  cpm = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 2.5 });
  cpc = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
});

afterAll(async () => {
  await ctx.close();
});

/** Each test's reader: the clicks of one test are never another's, whatever the visitor's pace rule counts. */
let reader = '';
beforeEach(() => {
  reader = readerAddress();
});

function cpmToken(overrides = {}) {
  const claims = serveClaims(cpm, 'tCPM', IMPRESSION_PRICE, overrides);
  return { claims, token: signedToken(ctx, claims) };
}

function cpcToken(overrides = {}) {
  const claims = serveClaims(cpc, 'CPC', CLICK_PRICE, overrides);
  return { claims, token: signedToken(ctx, claims) };
}

function eventsOfServe(lineItemId: string, serveId: string, count: number) {
  return eventually(async () => {
    const mine = (await eventsOf(ctx, lineItemId)).filter((event) => event.serve_id === serveId);
    return mine.length >= count ? mine : undefined;
  }, `${count} events of serve ${serveId}`);
}

/** Sends a valid marker impression and waits for it: everything accepted before it is in ClickHouse by then. */
async function settle(item: TrackedLineItem) {
  const claims = serveClaims(item, 'tCPM', 0);
  await fromAddress(ctx, pixelUrl(signedToken(ctx, claims)), reader);
  await eventsOfServe(item.lineItemId, claims.s, 1);
}

describe('GET /v1/t/i/:token (impression pixel)', () => {
  it('answers a 1x1 GIF that no cache keeps', async () => {
    const response = await fromAddress(ctx, pixelUrl(cpmToken().token), reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    expect(response.headers['cache-control']).toContain('no-store');
    expect(response.rawPayload.subarray(0, 6).toString()).toBe('GIF89a');
    expect(response.rawPayload.readUInt16LE(6)).toBe(1);
    expect(response.rawPayload.readUInt16LE(8)).toBe(1);
  });

  it('bills an impression from a residential address at the signed price, and reports it', async () => {
    const item = await trackedLineItem(ctx);
    const claims = serveClaims(item, 'tCPM', IMPRESSION_PRICE);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, claims)), reader);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({
      type: 'impression',
      source: 'pixel',
      serve_id: claims.s,
      campaign_id: item.campaignId,
      placement_id: item.placementId,
      publisher_id: item.publisherId,
      price_model: 'tCPM',
      cost_nanos: IMPRESSION_PRICE,
      ip: reader,
      ip_class: 'public',
      ivt: '',
    });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });

  it('takes any extra query parameter (utm_*, a wrapper\'s own) and bills the impression as without', async () => {
    const item = await trackedLineItem(ctx);
    const response = await fromAddress(ctx, `${pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE)))}?utm_source=news&fbclid=x1`, reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ type: 'impression', ivt: '', cost_nanos: IMPRESSION_PRICE });
  });

  it('bills an impression from a residential IPv6 address', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), ADDRESSES.telekomResidentialV6);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip: ADDRESSES.telekomResidentialV6, ip_class: 'public', ivt: '', cost_nanos: IMPRESSION_PRICE });
  });

  it('stores impressions from data-center addresses (IPv4 and IPv6, four providers) as invalid datacenter with their network, unbilled', async () => {
    const item = await trackedLineItem(ctx);
    const cases = [
      { ip: ADDRESSES.awsV4, network: 'AS16509 Amazon Web Services' },
      { ip: ADDRESSES.googleCloudV4, network: 'AS396982 Google Cloud' },
      { ip: ADDRESSES.hetznerV6, network: 'AS24940 Hetzner Online' },
      { ip: ADDRESSES.azureV6, network: 'AS8075 Microsoft Azure' },
    ];
    for (const { ip } of cases) {
      const response = await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), ip);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/gif');
    }
    const events = await waitForEvents(ctx, item.lineItemId, cases.length);
    for (const { ip, network } of cases) {
      expect(events.find((event) => event.ip === ip)).toMatchObject({ ip_class: 'datacenter', ip_network: network, ivt: 'datacenter', cost_nanos: 0 });
    }
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 0, spend_nanos: 0 });
  });

  it('folds an IPv4-mapped IPv6 address to IPv4 before classifying it', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), `::ffff:${ADDRESSES.awsV4}`);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip: ADDRESSES.awsV4, ivt: 'datacenter' });
  });

  it('counts a privacy relay (Cloudflare WARP) as valid, with ip_class relay', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), ADDRESSES.cloudflareWarp);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip_class: 'relay', ip_network: 'AS13335 Cloudflare', ivt: '', cost_nanos: IMPRESSION_PRICE });
  });

  it('stores a bot user agent as invalid bot, and an empty one as no_user_agent, unbilled', async () => {
    const item = await trackedLineItem(ctx);
    const bot = serveClaims(item, 'tCPM', IMPRESSION_PRICE);
    const anonymous = serveClaims(item, 'tCPM', IMPRESSION_PRICE);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, bot)), reader, BOT_UA);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, anonymous)), reader, '');
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.find((event) => event.serve_id === bot.s)).toMatchObject({ ivt: 'bot', cost_nanos: 0, user_agent: BOT_UA });
    expect(events.find((event) => event.serve_id === anonymous.s)).toMatchObject({ ivt: 'no_user_agent', cost_nanos: 0 });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 0, spend_nanos: 0 });
  });

  it('stores private and loopback addresses as invalid private_ip by default', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), '192.168.1.20');
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip_class: 'private', ivt: 'private_ip', cost_nanos: 0 });
  });

  it('answers the same GIF for a tampered token (one byte changed) and never bills it', async () => {
    const item = await trackedLineItem(ctx);
    const claims = serveClaims(item, 'tCPM', IMPRESSION_PRICE);
    const token = signedToken(ctx, claims);
    const lastChar = token.at(-1) === 'A' ? 'B' : 'A';
    const tampered = token.slice(0, -1) + lastChar;
    const response = await fromAddress(ctx, pixelUrl(tampered), reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    // Nor is its price kept: a forged token's price is nobody's.
    expect(event).toMatchObject({ serve_id: claims.s, ivt: 'bad_token', cost_nanos: 0, price_nanos: 0 });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 0, spend_nanos: 0 });
  });

  it('records nothing for a token that does not decode at all, and still answers the GIF', async () => {
    const item = await trackedLineItem(ctx);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    const response = await fromAddress(ctx, pixelUrl(`x${token}`), reader);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    await settle(item);
    expect((await eventsOf(ctx, item.lineItemId)).map((event) => event.ivt)).toEqual(['']);
  });

  it('answers a HEAD request like the image and records nothing (link scanners and prefetchers do not load images)', async () => {
    const item = await trackedLineItem(ctx);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    const head = await ctx.app.inject({
      method: 'HEAD',
      url: pixelUrl(token),
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': reader },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers).toMatchObject({ 'content-type': 'image/gif', 'cache-control': 'no-store, max-age=0' });
    expect(head.body).toBe('');
    await settle(item);
    expect(await eventsOf(ctx, item.lineItemId)).toHaveLength(1);
  });

  it('answers the GIF to a token that does not percent-decode, as to every other bad token', async () => {
    for (const url of ['/v1/t/i/%00%ff.x', '/v1/t/i/%E0%A4%A']) {
      const response = await fromAddress(ctx, url, reader);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('image/gif');
      expect(response.rawPayload.subarray(0, 6).toString()).toBe('GIF89a');
    }
  });

  it('stores an impression of an expired link as expired_token, unbilled', async () => {
    const item = await trackedLineItem(ctx);
    const claims = serveClaims(item, 'tCPM', IMPRESSION_PRICE, { e: Math.floor(Date.now() / 1000) - 1 });
    await fromAddress(ctx, pixelUrl(signedToken(ctx, claims)), reader);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ivt: 'expired_token', cost_nanos: 0 });
  });

  it('counts the same serve once: a second impression is stored as duplicate, unbilled', async () => {
    const item = await trackedLineItem(ctx);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    await fromAddress(ctx, pixelUrl(token), reader);
    await fromAddress(ctx, pixelUrl(token), reader);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.map((event) => event.ivt).sort()).toEqual(['', 'duplicate']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });

  it('counts a browser impression after an invalid server-side one of the same serve', async () => {
    const item = await trackedLineItem(ctx);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    await fromAddress(ctx, pixelUrl(token), ADDRESSES.awsV4);
    await fromAddress(ctx, pixelUrl(token), reader);
    await waitForEvents(ctx, item.lineItemId, 2);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });
});

describe('GET /v1/t/c/:token (click redirect)', () => {
  /** Loads the serve's impression pixel; returns when it was answered, for waitPastClickDelay. */
  async function impression(token: string): Promise<number> {
    await fromAddress(ctx, pixelUrl(token), reader);
    return Date.now();
  }

  it("redirects 302 to the creative's destination with a click id, keeping the destination's own query and fragment", async () => {
    const { token } = cpcToken();
    const response = await fromAddress(ctx, clickUrl(token), reader);
    expect(response.statusCode).toBe(302);
    const location = response.headers.location as string;
    expect(location).toMatch(/^https:\/\/shop\.example\.com\/landing\?utm_source=adsvc&q=a%20b&adsvc_click_id=[0-9a-f-]{36}#offer$/);
  });

  it('redirects a click whose link carries extra query parameters (utm_*) as without', async () => {
    const { token } = cpcToken();
    const response = await fromAddress(ctx, `${clickUrl(token)}?utm_medium=chat&gclid=abc`, reader);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toMatch(/^https:\/\/shop\.example\.com\/landing\?utm_source=adsvc&q=a%20b&adsvc_click_id=[0-9a-f-]{36}#offer$/);
  });

  it('never redirects to a URL taken from the request', async () => {
    const { token } = cpcToken();
    for (const url of [
      `${clickUrl(token)}?url=https://evil.example/`,
      `${clickUrl(token)}?destination=https%3A%2F%2Fevil.example%2F&redirect=//evil.example`,
      `${clickUrl(token)}/https://evil.example/`,
    ]) {
      const response = await fromAddress(ctx, url, reader);
      if (response.statusCode === 302) expect(new URL(response.headers.location as string).host).toBe('shop.example.com');
      else expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('evil.example');
    }
  });

  it('answers 404 not_found for a link that names no creative we know', async () => {
    const garbage = await fromAddress(ctx, clickUrl('not-a-token'), reader);
    expect(garbage.statusCode).toBe(404);
    expect(garbage.json().error.code).toBe('not_found');
    const { token } = cpcToken({ r: '00000000-0000-4000-8000-000000000001' });
    const unknownCreative = await fromAddress(ctx, clickUrl(token), reader);
    expect(unknownCreative.statusCode).toBe(404);
    expect(unknownCreative.headers.location).toBeUndefined();
  });

  it('shows a person who opens a link cut short a page, not the envelope; a script keeps the envelope', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const url = clickUrl(signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    const cutShort = url.slice(0, 150);
    const navigation = await fromAddress(ctx, cutShort, reader, undefined, { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' });
    expect([navigation.statusCode, navigation.headers['content-type'], navigation.headers.location]).toEqual([404, 'text/html; charset=utf-8', undefined]);
    expect(navigation.body).toContain('This link is incomplete');
    const oldBrowser = await fromAddress(ctx, cutShort, reader, undefined, { accept: 'text/html,application/xhtml+xml' });
    expect(oldBrowser.headers['content-type']).toBe('text/html; charset=utf-8');
    const script = await fromAddress(ctx, cutShort, reader, undefined, { 'sec-fetch-dest': 'empty' });
    expect(script.statusCode).toBe(404);
    expect(script.json().error.code).toBe('not_found');
  });

  it('shows the reader a page, records nothing and bills nothing, when the campaign was deleted after the serve', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const claims = serveClaims(item, 'CPC', CLICK_PRICE);
    const token = signedToken(ctx, claims);
    const deleted = await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${item.campaignId}`, headers: { 'x-api-key': item.key } });
    expect(deleted.statusCode).toBe(204);
    const click = await fromAddress(ctx, clickUrl(token), reader);
    expect(click.statusCode).toBe(404);
    expect(click.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(click.headers.location).toBeUndefined();
    expect(click.body).toContain('This ad is no longer available');
    await settle(item);
    expect((await eventsOf(ctx, item.lineItemId)).map((event) => event.type)).toEqual(['impression']);
  });

  it('answers 404 not_found to a forged link naming a line item we do not have, and stores its click as bad_token', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const forgedLineItemId = randomUUID();
    const forged = signTrackingToken({ ...serveClaims(item, 'CPC', CLICK_PRICE), l: forgedLineItemId }, 'not-our-secret');
    const click = await fromAddress(ctx, clickUrl(forged), reader);
    expect(click.statusCode).toBe(404);
    expect(click.json().error.code).toBe('not_found');
    expect(click.body).not.toContain('no longer available');
    const [event] = await waitForEvents(ctx, forgedLineItemId, 1);
    expect(event).toMatchObject({ type: 'click', ivt: 'bad_token', cost_nanos: 0 });
  });

  it('bills a click that follows its impression by more than a second (CPC), under the click id it redirected with', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const claims = serveClaims(item, 'CPC', CLICK_PRICE);
    const token = signedToken(ctx, claims);
    await waitPastClickDelay(await impression(token));
    const response = await fromAddress(ctx, clickUrl(token), reader);
    const clickId = new URL(response.headers.location as string).searchParams.get('adsvc_click_id');
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    // Both keep the price signed into the link.
    expect(events.find((event) => event.type === 'impression')).toMatchObject({ ivt: '', cost_nanos: 0, price_nanos: CLICK_PRICE });
    expect(events.find((event) => event.type === 'click')).toMatchObject({
      price_nanos: CLICK_PRICE,
      event_id: clickId,
      click_id: clickId,
      source: 'click',
      ivt: '',
      cost_nanos: CLICK_PRICE,
    });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });

  it('bills the impression and the click of a format 1 link (the JSON token of versions before format 2) on an instance that signs format 2', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const claims = serveClaims(item, 'CPC', CLICK_PRICE);
    // Format 1: base64url(JSON claims) '.' base64url(HMAC-SHA256 of that text), as versions before format 2 sign it.
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const token = `${payload}.${createHmac('sha256', ctx.secrets.trackingSecret).update(payload).digest('base64url')}`;
    expect(token).not.toBe(signedToken(ctx, claims));
    await waitPastClickDelay(await impression(token));
    const response = await fromAddress(ctx, clickUrl(token), reader);
    expect(response.statusCode).toBe(302);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.find((event) => event.type === 'impression')).toMatchObject({ serve_id: claims.s, ivt: '' });
    expect(events.find((event) => event.type === 'click')).toMatchObject({ serve_id: claims.s, ivt: '', cost_nanos: CLICK_PRICE });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });

  it('stores a click with no impression of its serve as click_without_impression, and still redirects', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const response = await fromAddress(ctx, clickUrl(signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE))), reader);
    expect(response.statusCode).toBe(302);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ type: 'click', ivt: 'click_without_impression', cost_nanos: 0 });
  });

  it('stores a click less than 1000 ms after its impression as click_too_fast', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    await fromAddress(ctx, pixelUrl(token), reader);
    const response = await fromAddress(ctx, clickUrl(token), reader);
    expect(response.statusCode).toBe(302);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.find((event) => event.type === 'click')).toMatchObject({ ivt: 'click_too_fast', cost_nanos: 0 });
  });

  it('counts one click per serve: a second click is duplicate', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    await waitPastClickDelay(await impression(token));
    await fromAddress(ctx, clickUrl(token), reader);
    await fromAddress(ctx, clickUrl(token), reader);
    const clicks = (await waitForEvents(ctx, item.lineItemId, 3)).filter((event) => event.type === 'click');
    expect(clicks.map((click) => click.ivt).sort()).toEqual(['', 'duplicate']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, spend_nanos: CLICK_PRICE });
  });

  it('redirects clicks from data centers and bots too, without billing them', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const server = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    const bot = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    expect((await fromAddress(ctx, clickUrl(server), ADDRESSES.hetznerV6)).statusCode).toBe(302);
    expect((await fromAddress(ctx, clickUrl(bot), reader, BOT_UA)).statusCode).toBe(302);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.map((event) => event.ivt).sort()).toEqual(['bot', 'datacenter']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 0, spend_nanos: 0 });
  });

  it('redirects a tampered click link to the real destination but does not bill it', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    const tampered = token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A');
    const response = await fromAddress(ctx, clickUrl(tampered), reader);
    expect(response.statusCode).toBe(302);
    expect(new URL(response.headers.location as string).host).toBe('shop.example.com');
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ivt: 'bad_token', cost_nanos: 0 });
  });

  /** Serves whose only impression is invalid traffic: from a data center, from a bot, a script fetch. */
  async function invalidImpressions(item: TrackedLineItem): Promise<string[]> {
    const tokens = [0, 1, 2].map(() => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    await fromAddress(ctx, pixelUrl(tokens[0]!), ADDRESSES.awsV4);
    await fromAddress(ctx, pixelUrl(tokens[1]!), reader, BOT_UA);
    await fromAddress(ctx, pixelUrl(tokens[2]!), reader, undefined, { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' });
    await waitPastClickDelay(Date.now());
    return tokens;
  }

  it('does not bill a click whose serve had only an invalid impression: click_without_impression', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    for (const token of await invalidImpressions(item)) {
      expect((await fromAddress(ctx, clickUrl(token), reader)).statusCode).toBe(302);
    }
    const clicks = (await waitForEvents(ctx, item.lineItemId, 6)).filter((event) => event.type === 'click');
    expect(clicks.map((click) => click.ivt)).toEqual(Array(3).fill('click_without_impression'));
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
  });

  it("checks ClickHouse for the impression of a serve this process does not remember (another instance's, or before a restart)", async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    const impressionAnsweredAt = await impression(token);
    await waitForEvents(ctx, item.lineItemId, 1);
    await ctx.close();
    ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    await waitPastClickDelay(impressionAnsweredAt);
    await fromAddress(ctx, clickUrl(token), reader);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.find((event) => event.type === 'click')).toMatchObject({ ivt: '', cost_nanos: CLICK_PRICE });
  });

  it('does not bill such a click at a process that does not remember the serve either (ClickHouse counts only valid impressions)', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const tokens = await invalidImpressions(item);
    await waitForEvents(ctx, item.lineItemId, 3);
    await ctx.close();
    ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    for (const token of tokens) await fromAddress(ctx, clickUrl(token), reader);
    const clicks = (await waitForEvents(ctx, item.lineItemId, 6)).filter((event) => event.type === 'click');
    expect(clicks.map((click) => click.ivt)).toEqual(Array(3).fill('click_without_impression'));
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 0, spend_nanos: 0 });
  });
});
