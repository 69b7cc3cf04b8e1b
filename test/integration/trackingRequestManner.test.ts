import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import {
  ADDRESSES,
  BROWSER_UA,
  clickUrl,
  fromAddress,
  pixelUrl,
  readerAddress,
  rollupOf,
  serveClaims,
  signedToken,
  trackedLineItem,
  waitForEvents,
  waitPastClickDelay,
} from '../helpers/trackingFixtures.js';

/**
 * How a tracking request was made (Fetch Metadata) and who made it (server-side markers). The header
 * sets are the ones Chromium sends, as test/browser/renderKit.test.ts asserts against a real Chromium.
 */
const IMAGE_LOAD = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
const SCRIPT_FETCH = { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' };
const NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };
const IFRAME = { 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site' };

// tCPM 2.50 USD: 2,500,000 nano-USD per impression. CPC 0.40 USD: 400,000,000 nano-USD per click.
const IMPRESSION_PRICE = 2_500_000;
const CLICK_PRICE = 400_000_000;

let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});

afterAll(async () => {
  await ctx.close();
});

/** Each test's reader: the clicks of one test are never another's, whatever the visitor's pace rule counts. */
let reader = '';
beforeEach(() => {
  reader = readerAddress();
});

describe('impression pixel: the request must be an image load (Sec-Fetch-Dest)', () => {
  it('bills an image load and stores its Fetch Metadata as sent', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), reader, undefined, IMAGE_LOAD);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ivt: '', cost_nanos: IMPRESSION_PRICE, fetch_dest: 'image', fetch_mode: 'no-cors', fetch_site: 'cross-site' });
  });

  it('stores a script fetch from a residential address with a browser user agent as not_image_request, unbilled, answering the same GIF', async () => {
    const item = await trackedLineItem(ctx);
    const response = await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), reader, undefined, SCRIPT_FETCH);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/gif');
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip_class: 'public', ivt: 'not_image_request', cost_nanos: 0, fetch_dest: 'empty', fetch_mode: 'cors' });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 0, spend_nanos: 0 });
  });

  it('calls any destination other than image not_image_request (an iframe loading the pixel)', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), ADDRESSES.telekomResidentialV6, undefined, IFRAME);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ivt: 'not_image_request', cost_nanos: 0, fetch_dest: 'iframe' });
  });

  it('judges a request without Fetch Metadata (older browsers) on its address and user agent, as before', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), reader);
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ivt: '', cost_nanos: IMPRESSION_PRICE, fetch_dest: '', fetch_mode: '', fetch_site: '' });
  });

  it('does not let a script fetch use up the serve: the browser image load after it still counts', async () => {
    const item = await trackedLineItem(ctx);
    const token = signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    await fromAddress(ctx, pixelUrl(token), reader, undefined, SCRIPT_FETCH);
    await fromAddress(ctx, pixelUrl(token), reader, undefined, IMAGE_LOAD);
    const events = await waitForEvents(ctx, item.lineItemId, 2);
    expect(events.map((event) => event.ivt).sort()).toEqual(['', 'not_image_request']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });
});

describe('click redirect: the request must be a navigation (Sec-Fetch-Mode)', () => {
  async function impressionThenWait(token: string) {
    await fromAddress(ctx, pixelUrl(token), reader, undefined, IMAGE_LOAD);
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }

  it('bills a click that is a navigation and stores its Fetch Metadata', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    await impressionThenWait(token);
    expect((await fromAddress(ctx, clickUrl(token), reader, undefined, NAVIGATION)).statusCode).toBe(302);
    const click = (await waitForEvents(ctx, item.lineItemId, 2)).find((event) => event.type === 'click');
    expect(click).toMatchObject({ ivt: '', cost_nanos: CLICK_PRICE, fetch_dest: 'document', fetch_mode: 'navigate', fetch_site: 'cross-site' });
  });

  it('stores a script fetch of the click link as not_navigation, unbilled, still redirecting; the real click after it counts', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    await impressionThenWait(token);
    expect((await fromAddress(ctx, clickUrl(token), reader, undefined, SCRIPT_FETCH)).statusCode).toBe(302);
    await fromAddress(ctx, clickUrl(token), reader, undefined, NAVIGATION);
    const clicks = (await waitForEvents(ctx, item.lineItemId, 3)).filter((event) => event.type === 'click');
    expect(clicks.map((click) => [click.ivt, click.fetch_mode]).sort()).toEqual([['', 'navigate'], ['not_navigation', 'cors']]);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, spend_nanos: CLICK_PRICE });
  });
});

describe('click redirect: the request must be a top-level navigation, not a frame or a prefetch', () => {
  it('stores a click loaded in an iframe (click stuffing), or prefetched or prerendered, as not_navigation, unbilled, still redirecting', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const stuffed: Array<Record<string, string>> = [
      IFRAME,
      { ...NAVIGATION, 'sec-fetch-dest': 'frame' },
      { ...NAVIGATION, 'sec-purpose': 'prefetch' },
      { ...NAVIGATION, 'sec-purpose': 'prefetch;prerender' },
      { purpose: 'prefetch' },
    ];
    const tokens = stuffed.map(() => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const token of tokens) await fromAddress(ctx, pixelUrl(token), reader, undefined, IMAGE_LOAD);
    await waitPastClickDelay(Date.now());
    for (const [index, headers] of stuffed.entries()) {
      expect((await fromAddress(ctx, clickUrl(tokens[index]!), reader, undefined, headers)).statusCode).toBe(302);
    }
    const clicks = (await waitForEvents(ctx, item.lineItemId, 2 * stuffed.length)).filter((event) => event.type === 'click');
    expect(clicks.map((click) => click.ivt)).toEqual(Array(stuffed.length).fill('not_navigation'));
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 0, spend_nanos: 0 });
  });
});

describe('click redirect: a person started the navigation (Sec-Fetch-User)', () => {
  const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
  const IPHONE_SAFARI_UA =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
  const { 'sec-fetch-user': _marked, ...SCRIPTED_NAVIGATION } = NAVIGATION;

  it('stores a navigation a script started (no Sec-Fetch-User from Chromium or Firefox) as no_user_activation, unbilled, still redirecting', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const clicks: Array<[userAgent: string, headers: Record<string, string>]> = [
      [BROWSER_UA, SCRIPTED_NAVIGATION],
      [FIREFOX_UA, SCRIPTED_NAVIGATION],
    ];
    const tokens = clicks.map(() => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const [index, token] of tokens.entries()) await fromAddress(ctx, pixelUrl(token), reader, clicks[index]![0], IMAGE_LOAD);
    await waitPastClickDelay(Date.now());
    for (const [index, [userAgent, headers]] of clicks.entries()) {
      expect((await fromAddress(ctx, clickUrl(tokens[index]!), reader, userAgent, headers)).statusCode).toBe(302);
    }
    const stored = (await waitForEvents(ctx, item.lineItemId, 2 * clicks.length)).filter((event) => event.type === 'click');
    expect(stored.map((click) => click.ivt)).toEqual(['no_user_activation', 'no_user_activation']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 0, spend_nanos: 0 });
  });

  it('bills a navigation without Sec-Fetch-User from Safari (WebKit never sends it) and one the browser itself started (Sec-Fetch-Site none)', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const clicks: Array<[userAgent: string, headers: Record<string, string>]> = [
      [IPHONE_SAFARI_UA, SCRIPTED_NAVIGATION],
      [BROWSER_UA, { ...SCRIPTED_NAVIGATION, 'sec-fetch-site': 'none' }],
    ];
    const tokens = clicks.map(() => signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const [index, token] of tokens.entries()) await fromAddress(ctx, pixelUrl(token), reader, clicks[index]![0], IMAGE_LOAD);
    await waitPastClickDelay(Date.now());
    for (const [index, [userAgent, headers]] of clicks.entries()) await fromAddress(ctx, clickUrl(tokens[index]!), reader, userAgent, headers);
    const stored = (await waitForEvents(ctx, item.lineItemId, 2 * clicks.length)).filter((event) => event.type === 'click');
    expect(stored.map((click) => click.ivt)).toEqual(['', '']);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 2, spend_nanos: 2 * CLICK_PRICE });
  });
});

describe('server-side markers', () => {
  it('stores an impression carrying CF-Worker (a Cloudflare Worker, from a relay address) as server_side, unbilled', async () => {
    const item = await trackedLineItem(ctx);
    await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', IMPRESSION_PRICE))), ADDRESSES.cloudflareWarp, undefined, {
      'cf-worker': 'publisher.example',
    });
    const [event] = await waitForEvents(ctx, item.lineItemId, 1);
    expect(event).toMatchObject({ ip_class: 'relay', ip_network: 'AS13335 Cloudflare', ivt: 'server_side', cost_nanos: 0 });
  });

  it('stores a click carrying CF-Worker as server_side, unbilled', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const token = signedToken(ctx, serveClaims(item, 'CPC', CLICK_PRICE));
    await fromAddress(ctx, pixelUrl(token), reader, undefined, IMAGE_LOAD);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await fromAddress(ctx, clickUrl(token), ADDRESSES.cloudflareWarp, undefined, { ...NAVIGATION, 'cf-worker': 'publisher.example' });
    const click = (await waitForEvents(ctx, item.lineItemId, 2)).find((event) => event.type === 'click');
    expect(click).toMatchObject({ ivt: 'server_side', cost_nanos: 0 });
  });
});

describe('no Fetch Metadata at all: an HTTP client claiming a browser that sends it', () => {
  const FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
  const SAFARI_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
  const IPHONE_SAFARI_UA =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
  const IPHONE_CHROME_UA =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1';
  const IPAD_FIREFOX_UA = 'Mozilla/5.0 (iPad; CPU OS 16_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/112.0 Mobile/15E148 Safari/605.1.15';
  const OLD_SAFARI_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.3 Safari/605.1.15';
  const OLD_IPHONE_UA =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.3 Mobile/15E148 Safari/604.1';
  const GNOME_WEB_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
  /** What WebKit 16.4+ sends on a person's click: the navigation's Fetch Metadata, never Sec-Fetch-User. */
  const { 'sec-fetch-user': _user, ...WEBKIT_NAVIGATION } = NAVIGATION;
  const OLD_CHROME_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/75.0.3770.100 Safari/537.36';
  const OLD_FIREFOX_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:89.0) Gecko/20100101 Firefox/89.0';
  const OLD_SAMSUNG_UA =
    'Mozilla/5.0 (Linux; Android 9; SM-G960F) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/9.2 Chrome/67.0.3396.87 Mobile Safari/537.36';
  const OLD_EDGE_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.18363';
  const SEAMONKEY_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:60.0) Gecko/20100101 Firefox/60.0 SeaMonkey/2.53.18';
  const CHROME_130_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
  /** What Chrome 126 (BROWSER_UA) sends with every request to an https origin. */
  const CHROME_126_HINTS = { 'sec-ch-ua': '"Not/A)Brand";v="8", "Chromium";v="126", "Google Chrome";v="126"' };

  /** The advertiser's traffic-quality report and audit export name the reason for each invalid impression and click. */
  async function expectReported(app: TestContext, item: Awaited<ReturnType<typeof trackedLineItem>>, reason: string, impressions: number, clicks: number) {
    const headers = { 'x-api-key': item.key };
    const quality = await app.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/traffic-quality', headers });
    expect(quality.json().data).toContainEqual(
      expect.objectContaining({ campaign_id: item.campaignId, ivt_reason: reason, invalid_impressions: impressions, invalid_clicks: clicks }),
    );
    const exported = await app.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/events', query: { campaign_id: item.campaignId }, headers });
    const rows = exported.body.trim().split('\n').map((line) => JSON.parse(line) as { ivt_reason: string | null });
    expect(rows.filter((row) => row.ivt_reason === reason)).toHaveLength(impressions + clicks);
  }

  /** The pixel, a second's wait, then the click of each serve, each as its own user agent sends it. */
  async function pixelsThenClicks(app: TestContext, item: Awaited<ReturnType<typeof trackedLineItem>>, visits: Array<[string, Record<string, string>, Record<string, string>]>) {
    const tokens = visits.map(() => signedToken(app, serveClaims(item, 'CPC', CLICK_PRICE)));
    for (const [index, token] of tokens.entries()) {
      const pixel = await fromAddress(app, pixelUrl(token), reader, visits[index]![0], visits[index]![1]);
      expect([pixel.statusCode, pixel.headers['content-type']]).toEqual([200, 'image/gif']);
    }
    await waitPastClickDelay(Date.now());
    for (const [index, token] of tokens.entries()) {
      expect((await fromAddress(app, clickUrl(token), reader, visits[index]![0], visits[index]![2])).statusCode).toBe(302);
    }
    const events = await waitForEvents(app, item.lineItemId, 2 * visits.length);
    const ivtOf = (type: string) => events.filter((event) => event.type === type).map((event) => [event.user_agent, event.ivt]);
    return { impressions: ivtOf('impression'), clicks: ivtOf('click') };
  }

  describe('to an https TRACKING_BASE_URL (browsers send it there)', () => {
    let https: TestContext;
    beforeAll(async () => {
      https = await startAnotherInstance(ctx, { TRUST_PROXY: '127.0.0.1', TRACKING_BASE_URL: 'https://track.test' });
    });
    afterAll(async () => {
      await https.close();
    });

    it('stores the pixel and the click of a Chrome or Firefox user agent without any Sec-Fetch-* as no_fetch_metadata, unbilled, answered as usual', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [BROWSER_UA, {}, {}],
        [FIREFOX_UA, {}, {}],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['no_fetch_metadata', 'no_fetch_metadata']);
      expect(clicks.map(([, ivt]) => ivt)).toEqual(['no_fetch_metadata', 'no_fetch_metadata']);
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
      // What an operator alerts on when a proxy strips the headers from every browser.
      const metrics = (await https.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain('adsvc_events_invalid_total{type="impression",reason="no_fetch_metadata"} 2\n');
      expect(metrics).toContain('adsvc_events_invalid_total{type="click",reason="no_fetch_metadata"} 2\n');
    });

    it('does the same for Safari and every iOS browser (WebKit) from 16.4 on, which send it too: macOS Version/, iOS and iPadOS by the system version', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [SAFARI_UA, {}, {}],
        [IPHONE_SAFARI_UA, {}, {}],
        [IPHONE_CHROME_UA, {}, {}],
        [IPAD_FIREFOX_UA, {}, {}],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['no_fetch_metadata', 'no_fetch_metadata', 'no_fetch_metadata', 'no_fetch_metadata']);
      expect(clicks.map(([, ivt]) => ivt)).toEqual(['no_fetch_metadata', 'no_fetch_metadata', 'no_fetch_metadata', 'no_fetch_metadata']);
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
    });

    it('bills what browsers send there (WebKit without Sec-Fetch-User), and does not judge an unknown user agent or SeaMonkey (Firefox/60 on its own engine) by it', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [BROWSER_UA, IMAGE_LOAD, { ...NAVIGATION, ...CHROME_126_HINTS }],
        [FIREFOX_UA, IMAGE_LOAD, NAVIGATION],
        [SAFARI_UA, IMAGE_LOAD, WEBKIT_NAVIGATION],
        [IPHONE_CHROME_UA, IMAGE_LOAD, WEBKIT_NAVIGATION],
        [SEAMONKEY_UA, {}, {}],
        ['Opera/9.80 (J2ME/MIDP; Opera Mini/4.2.14912/870; U; id) Presto/2.4.15', {}, {}],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['', '', '', '', '', '']);
      expect(clicks.map(([, ivt]) => ivt)).toEqual(['', '', '', '', '', '']);
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ clicks: 6, spend_nanos: 6 * CLICK_PRICE });
    });

    it('stores the pixel and click of an HTTP client claiming a Chromium before 76 or a Firefox before 90 without Fetch Metadata as outdated_browser, unbilled (try35 H2)', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [OLD_CHROME_UA, {}, {}],
        [OLD_FIREFOX_UA, {}, {}],
        [OLD_SAMSUNG_UA, {}, {}],
        [OLD_EDGE_UA, {}, {}],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(Array(4).fill('outdated_browser'));
      expect(clicks.map(([, ivt]) => ivt)).toEqual(Array(4).fill('outdated_browser'));
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
      await expectReported(https, item, 'outdated_browser', 4, 4);
    });

    it('stores the pixel and click of a Chromium before 76 or a Firefox before 90 as outdated_browser whatever Fetch Metadata it sends: neither ever sent any (try36 M1)', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { 'sec-fetch-user': _activation, ...scriptedNavigation } = NAVIGATION;
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        // One header is enough to escape a rule judged only without any (the tester's curl loop).
        [OLD_CHROME_UA, { 'sec-fetch-dest': 'image' }, { 'sec-fetch-dest': 'document' }],
        [OLD_FIREFOX_UA, { 'sec-fetch-dest': 'image' }, { 'sec-fetch-dest': 'document' }],
        [OLD_CHROME_UA, IMAGE_LOAD, scriptedNavigation],
        // A person's current browser behind a UA switcher claiming an old Chrome: the false positive.
        [OLD_CHROME_UA, IMAGE_LOAD, NAVIGATION],
      ]);
      expect([...impressions, ...clicks].map(([, ivt]) => ivt)).toEqual(Array(8).fill('outdated_browser'));
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
    });

    it('stores the click of a Chromium 90+ user agent with Fetch Metadata but no Sec-CH-UA as client_hints_mismatch; bills its pixel (a page may withhold hints from it), an Android WebView, a WebView-based browser, an Electron app, and Firefox', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const WEBVIEW_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.102 Mobile Safari/537.36';
      // DuckDuckGo for Android: WebView's shape without `; wv`, and no hints (ivtfix36).
      const DUCKDUCKGO_ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0.6723.102 Mobile DuckDuckGo/5 Safari/537.36';
      // An Electron app: hints only after an Accept-CH answer (electron/electron#34762).
      const ELECTRON_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.41.97 Chrome/130.0.6723.191 Electron/33.2.1 Safari/537.36';
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [CHROME_130_UA, IMAGE_LOAD, NAVIGATION],
        [`${CHROME_130_UA} Edg/130.0.0.0`, IMAGE_LOAD, NAVIGATION],
        [WEBVIEW_UA, IMAGE_LOAD, NAVIGATION],
        [DUCKDUCKGO_ANDROID_UA, IMAGE_LOAD, NAVIGATION],
        [ELECTRON_UA, IMAGE_LOAD, NAVIGATION],
        [FIREFOX_UA, IMAGE_LOAD, NAVIGATION],
        [CHROME_130_UA.replace('Chrome/130', 'Chrome/89'), IMAGE_LOAD, NAVIGATION],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['', '', '', '', '', '', '']);
      // By user agent: events stored in the same millisecond may come back in either order.
      expect(Object.fromEntries(clicks)).toEqual({
        [CHROME_130_UA]: 'client_hints_mismatch',
        [`${CHROME_130_UA} Edg/130.0.0.0`]: 'client_hints_mismatch',
        [WEBVIEW_UA]: '',
        [DUCKDUCKGO_ANDROID_UA]: '',
        [ELECTRON_UA]: '',
        [FIREFOX_UA]: '',
        [CHROME_130_UA.replace('Chrome/130', 'Chrome/89')]: '',
      });
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ clicks: 5, spend_nanos: 5 * CLICK_PRICE });
    });

    it("stores a headless Chromium's pixel and click whose client hints contradict its Chrome user agent as client_hints_mismatch, unbilled (try35 H1)", async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      // What Playwright's headless Chromium 156 sent with userAgent set to Chrome 130, and an older headless build.
      const spoofed = { 'sec-ch-ua': '"Not:A-Brand";v="8", "Chromium";v="156"' };
      const headless = { 'sec-ch-ua': '"HeadlessChrome";v="130", "Chromium";v="130", "Not?A_Brand";v="99"' };
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [CHROME_130_UA, { ...IMAGE_LOAD, ...spoofed }, { ...NAVIGATION, ...spoofed }],
        [CHROME_130_UA, { ...IMAGE_LOAD, ...headless }, { ...NAVIGATION, ...headless }],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['client_hints_mismatch', 'client_hints_mismatch']);
      expect(clicks.map(([, ivt]) => ivt)).toEqual(['client_hints_mismatch', 'client_hints_mismatch']);
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ impressions: 0, clicks: 0, spend_nanos: 0 });
      await expectReported(https, item, 'client_hints_mismatch', 2, 2);
    });

    it('bills the client hints real browsers send: Chrome, Edge, a plain Chromium build (no Google brand), and a Firefox user agent over Chromium hints (a UA switcher, not judged)', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const hints = (value: string) => [{ ...IMAGE_LOAD, 'sec-ch-ua': value }, { ...NAVIGATION, 'sec-ch-ua': value }] as const;
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [CHROME_130_UA, ...hints('"Google Chrome";v="130", "Chromium";v="130", "Not?A_Brand";v="99"')],
        [`${CHROME_130_UA} Edg/130.0.0.0`, ...hints('"Chromium";v="130", "Microsoft Edge";v="130", "Not?A_Brand";v="99"')],
        [CHROME_130_UA.replace('Chrome/130', 'Chrome/156'), ...hints('"Chromium";v="156", "Not:A-Brand";v="24"')],
        [FIREFOX_UA, ...hints('"Google Chrome";v="130", "Chromium";v="130", "Not?A_Brand";v="99"')],
      ]);
      expect([...impressions, ...clicks].map(([, ivt]) => ivt)).toEqual(Array(8).fill(''));
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ clicks: 4, spend_nanos: 4 * CLICK_PRICE });
    });

    it('does not judge WebKit before 16.4 (it sent none), a WebKit browser off Apple systems, nor KaiOS feature phones (an old Gecko by design: try36 L5) by it', async () => {
      const item = await trackedLineItem(https, { bid_type: 'cpc', bid_value: 0.4 });
      const { impressions, clicks } = await pixelsThenClicks(https, item, [
        [OLD_SAFARI_UA, {}, {}],
        [OLD_IPHONE_UA, {}, {}],
        [GNOME_WEB_UA, {}, {}],
        ['Mozilla/5.0 (Mobile; LYF/F300B/LYF-F300B-001-01-15-130718-i;Android; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5', {}, {}],
        ['Mozilla/5.0 (Mobile; rv:84.0) Gecko/84.0 Firefox/84.0 KAIOS/3.0', {}, {}],
      ]);
      expect(impressions.map(([, ivt]) => ivt)).toEqual(['', '', '', '', '']);
      expect(clicks.map(([, ivt]) => ivt)).toEqual(['', '', '', '', '']);
      expect(await rollupOf(https, item.lineItemId)).toMatchObject({ clicks: 5, spend_nanos: 5 * CLICK_PRICE });
    });
  });

  it('to a plain http TRACKING_BASE_URL (browsers send none there) bills the same Chrome pixel and click without any', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
    const { impressions, clicks } = await pixelsThenClicks(ctx, item, [[BROWSER_UA, {}, {}]]);
    expect(impressions).toEqual([[BROWSER_UA, '']]);
    expect(clicks).toEqual([[BROWSER_UA, '']]);
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ clicks: 1, spend_nanos: CLICK_PRICE });
  });
});
