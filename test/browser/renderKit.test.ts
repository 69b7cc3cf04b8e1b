import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { packageRoot } from '../../src/packageRoot.js';
import { seedDemo, type DemoCreative, type DemoSetup } from '../../src/demo/demoSeed.js';
import { startDemoPublisher, type DemoPublisher } from '../../src/demo/demoPublisher.js';
import { demoCreative } from '../../src/demo/demoConversation.js';
import { MIN_CLICK_DELAY_MS } from '../../src/tracking/linkTracker.js';
import { CLICK_ID_PARAMETER } from '../../src/tracking/trackingLinkRoutes.js';
import { launchChromium, skipBrowserTests, VIEWPORT, type ChromiumSession } from './chromium.js';
import { freePort } from '../helpers/freePort.js';

/**
 * The render kit in a real browser, against the real service on loopback: the demo publisher's page
 * loads /sdk/v1/render.js from adsvc, gets its ad from its own backend, and the pixel and the click
 * go from Chromium to adsvc, through the event pipeline into ClickHouse, and out of the reporting route.
 */
const ARTIFACTS = path.join(packageRoot, 'test-artifacts');
/** Longer than several event flushes (100 ms in tests): what has not been counted by then was not sent. */
const SETTLE_MS = 1500;

let ctx: TestContext;
let adsvcUrl: string;
let browser: ChromiumSession;
const demos: DemoPublisher[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  const port = await freePort();
  adsvcUrl = `http://127.0.0.1:${port}`;
  // The browser is on loopback: let its traffic count, as a development install does.
  ctx = await startTestApp({ TRACKING_BASE_URL: adsvcUrl, SERVE_BASE_URL: adsvcUrl, IVT_ALLOW_PRIVATE_IPS: 'true' });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(demos.map((demo) => demo.close()));
  await ctx?.close();
});

interface Demo {
  setup: DemoSetup;
  url: string;
}

/** A fresh demo tenant (its own campaign, so counts start at zero) and its publisher backend. */
async function startDemo(creative: Partial<DemoCreative> = {}): Promise<Demo> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const setup = await seedDemo({
    adsvcUrl,
    adminToken: ctx.secrets.adminToken,
    creative: { ...demoCreative, destination_url: `${url}/landing`, image_url: `${url}/images/rain-shell.svg`, ...creative },
  });
  demos.push(await startDemoPublisher({ adsvcUrl, publisherToken: setup.publisherToken, placementId: setup.placementId, port }));
  // The new campaign reaches the serving index within a refresh; the page should not race it.
  await expect
    .poll(async () => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/v1/serve',
        headers: { authorization: `Bearer ${setup.publisherToken}` },
        payload: { placement_id: setup.placementId, context: { query: 'hiking', response: '' } },
      });
      return response.statusCode === 200 && response.json().ad !== null;
    }, { timeout: 15_000, interval: 100 })
    .toBe(true);
  return { setup, url };
}

/** Impressions and clicks of the demo campaign, as the advertiser's report shows them. */
async function reported(setup: DemoSetup): Promise<{ impressions: number; clicks: number }> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v1/advertiser/reporting/campaigns?campaign_ids=${setup.campaignId}`,
    headers: { 'x-api-key': setup.advertiserKey },
  });
  expect(response.statusCode).toBe(200);
  const row = response.json().data[0] ?? { impressions: 0, clicks: 0 };
  return { impressions: row.impressions, clicks: row.clicks };
}

/** Opens the chat page and waits until the ad is rendered; records every request to the pixel. */
async function openChat(demo: Demo): Promise<{ page: Page; pixelRequests: Request[] }> {
  const page = await browser.context.newPage();
  const pixelRequests: Request[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(`${adsvcUrl}/v1/t/i/`)) pixelRequests.push(request);
  });
  await page.goto(`${demo.url}/`);
  await page.waitForSelector('body[data-ad-state]');
  expect(await page.getAttribute('body', 'data-ad-state')).toBe('rendered');
  return { page, pixelRequests };
}

/** The Fetch Metadata the service stored for the demo campaign's events of one type. */
async function storedFetchMetadata(setup: DemoSetup, type: 'impression' | 'click') {
  const result = await ctx.stores.ch.client.query({
    query: `SELECT fetch_dest, fetch_mode, fetch_site, ivt FROM events_v1 WHERE campaign_id = {id:UUID} AND type = {type:String}`,
    query_params: { id: setup.campaignId, type },
    format: 'JSONEachRow',
  });
  return result.json<{ fetch_dest: string; fetch_mode: string; fetch_site: string; ivt: string }>();
}

/** When the service stored the campaign's one event of `type`, in ms since the epoch. */
async function storedAtMs(setup: DemoSetup, type: 'impression' | 'click'): Promise<number> {
  const result = await ctx.stores.ch.client.query({
    query: `SELECT toString(toUnixTimestamp64Milli(event_time)) AS at_ms FROM events_v1 WHERE campaign_id = {id:UUID} AND type = {type:String}`,
    query_params: { id: setup.campaignId, type },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ at_ms: string }>();
  return Number(row!.at_ms);
}

/**
 * The press's click, judged by the rule against the two times the service stored (each event's
 * arrival): under MIN_CLICK_DELAY_MS after its impression it is click_too_fast and unbilled; a click
 * that arrived first (the two requests race on their own connections) may also be
 * click_without_impression; later it is a person's and billed. The kit sends the pixel before the
 * click, but the click waits for Chromium to open a new tab, which on a loaded machine can take over
 * a second (rev44 R6): the test cannot pick the gap, only check the verdict it called for.
 */
async function expectPressedClickJudgedByItsDelay(setup: DemoSetup): Promise<void> {
  const gap = (await storedAtMs(setup, 'click')) - (await storedAtMs(setup, 'impression'));
  const allowed = gap >= MIN_CLICK_DELAY_MS ? [''] : gap > 0 ? ['click_too_fast'] : ['click_too_fast', 'click_without_impression'];
  expect(allowed, `click ${gap} ms after its impression`).toContain((await storedFetchMetadata(setup, 'click'))[0]!.ivt);
  await expect.poll(() => reported(setup), { timeout: 15_000, interval: 200 }).toEqual({ impressions: 1, clicks: gap >= MIN_CLICK_DELAY_MS ? 1 : 0 });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe.skipIf(skipBrowserTests)('render kit in Chromium: the impression', () => {
  it('is not counted while the card is below the fold, counts once in view, and not again after scrolling away and back', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    const card = page.locator('.adsvc-card');

    const box = await card.boundingBox();
    expect(box!.y).toBeGreaterThan(VIEWPORT.height);
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    expect(await reported(demo.setup)).toEqual({ impressions: 0, clicks: 0 });

    await card.scrollIntoViewIfNeeded();
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    // An image request (new Image().src), never fetch or XMLHttpRequest: the spec's rule 1.
    expect(pixelRequests[0]!.resourceType()).toBe('image');
    expect(pixelRequests[0]!.url()).toBe(await page.evaluate(() => (window as unknown as { demoAd: { tracking: { impression_url: string } } }).demoAd.tracking.impression_url));
    await expect.poll(() => reported(demo.setup), { timeout: 15_000, interval: 200 }).toEqual({ impressions: 1, clicks: 0 });
    // What Chromium really sends for new Image(): the headers the not_image_request rule reads. The
    // demo page and adsvc are both on 127.0.0.1 (other ports): same-site, not cross-site.
    const sent = await pixelRequests[0]!.allHeaders();
    expect(sent).toMatchObject({ 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'same-site' });
    expect(await storedFetchMetadata(demo.setup, 'impression')).toEqual([{ fetch_dest: 'image', fetch_mode: 'no-cors', fetch_site: 'same-site', ivt: '' }]);

    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await card.evaluate((element) => element.getBoundingClientRect().top)).toBeGreaterThan(VIEWPORT.height);
    await sleep(300);
    await card.scrollIntoViewIfNeeded();
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(1);
    expect(await reported(demo.setup)).toEqual({ impressions: 1, clicks: 0 });
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit in Chromium: the click', () => {
  it('follows click_url through the redirect to the destination with a click id, and is counted', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    const clickUrl = await page.evaluate(() => (window as unknown as { demoAd: { tracking: { click_url: string } } }).demoAd.tracking.click_url);
    const link = page.locator('.adsvc-card a');
    expect(await link.getAttribute('href')).toBe(clickUrl);
    expect(await link.getAttribute('rel')).toBe('sponsored noopener');

    await link.scrollIntoViewIfNeeded();
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await pixelRequests[0]!.response();
    // A click sooner than this after the impression is not a person's: the service would not bill it.
    await sleep(MIN_CLICK_DELAY_MS + 200);

    const navigations: Request[] = [];
    browser.context.on('request', (request) => {
      if (request.isNavigationRequest()) navigations.push(request);
    });
    const [landing] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await landing.waitForLoadState('load');
    const landed = new URL(landing.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(`${demo.url}/landing`);
    expect(landed.searchParams.get(CLICK_ID_PARAMETER)).toMatch(/^[0-9a-f-]{36}$/);
    expect(await landing.locator('h1').textContent()).toBe('Trailhead Outfitters');
    const click = navigations.find((request) => request.url() === clickUrl);
    expect(click).toBeDefined();
    // What Chromium really sends when a person follows click_url: the headers the not_navigation rule reads.
    expect(await click!.allHeaders()).toMatchObject({ 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'same-site', 'sec-fetch-user': '?1' });

    await expect.poll(() => reported(demo.setup), { timeout: 15_000, interval: 200 }).toEqual({ impressions: 1, clicks: 1 });
    expect(await storedFetchMetadata(demo.setup, 'click')).toEqual([{ fetch_dest: 'document', fetch_mode: 'navigate', fetch_site: 'same-site', ivt: '' }]);
    await landing.close();
    await page.close();
  });
});

/** A phone's screen, where a tall card is often less than half on screen when the reader taps it. */
const PHONE = { width: 360, height: 740 };

/** Scrolls the page so that only `share` of the card's height is on screen, at the bottom edge. */
async function showPartOfCard(page: Page, share: number): Promise<{ x: number; y: number }> {
  const card = page.locator('.adsvc-card');
  // At a phone's width the card takes its narrow layout once its ResizeObserver saw the new width, a
  // frame or two after the resize: measured before, the card is taller than what is scrolled.
  await expect.poll(() => card.getAttribute('class'), { timeout: 10_000 }).toContain('adsvc-card--narrow');
  const box = (await card.boundingBox())!;
  const top = await card.evaluate((element, visible) => {
    const { height } = element.getBoundingClientRect();
    window.scrollBy(0, element.getBoundingClientRect().top - (window.innerHeight - height * visible));
    return element.getBoundingClientRect().top;
  }, share);
  expect(PHONE.height - top).toBeCloseTo(box.height * share, 0);
  // A point of the card's visible part: where the reader's finger lands.
  return { x: box.x + box.width / 2, y: top + (box.height * share) / 2 };
}

describe.skipIf(skipBrowserTests)('render kit in Chromium: a card tapped before half of it is on screen (pub42 P9)', () => {
  it('fires the impression on the reader\'s press (pointer down then up on the card; valid), stores the click that follows click_too_fast when within a second of it; an untouched card under half on screen, or a press a script dispatches, fires nothing', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    await page.setViewportSize(PHONE);
    const spot = await showPartOfCard(page, 0.4);
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);

    // What a page (or a bot on it) can claim: events it dispatches itself are not a reader's press.
    await page.locator('.adsvc-card a').evaluate((link) => {
      link.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, composed: true }));
      link.dispatchEvent(new PointerEvent('pointerup', { bubbles: true, composed: true }));
      link.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
      // On the card, not its link: a click dispatched on the link would follow it (click stuffing, below).
      link.parentElement!.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    });
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);

    // The reader's press: the pointer going down claims nothing yet (it may be a touch that becomes a
    // scroll); coming up on the card it fires the pixel, then the click opens a new tab.
    await page.mouse.move(spot.x, spot.y);
    await page.mouse.down();
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    const [landing] = await Promise.all([browser.context.waitForEvent('page'), page.mouse.up()]);
    await landing.waitForLoadState('load');
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    expect(pixelRequests[0]!.resourceType()).toBe('image');
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'click')).length, { timeout: 15_000, interval: 200 }).toBe(1);
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'impression')).map((impression) => impression.ivt), { timeout: 15_000, interval: 200 }).toEqual(['']);
    // The pixel is requested in the pointerup, before the click's navigation starts: most often the
    // click reaches the service well within a second of its impression (click_too_fast).
    await expectPressedClickJudgedByItsDelay(demo.setup);
    // One impression per card: the press does not fire it again, nor does scrolling it fully into view.
    await page.locator('.adsvc-card').scrollIntoViewIfNeeded();
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(1);
    await landing.close();
    await page.close();
  });

  it('claims nothing for a mouse press that went down on the card and ended off it, nor for the next one, which went down off the card and came up on it; a press on the card then fires it', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    await page.setViewportSize(PHONE);
    const spot = await showPartOfCard(page, 0.4);
    // Off the card: the chat above it.
    const off = { x: spot.x, y: spot.y - 200 };
    // Down on the card and dragged away: Chromium drags the card's link and cancels the pointer at
    // the document, not on the card.
    await page.mouse.move(spot.x, spot.y);
    await page.mouse.down();
    await page.mouse.move(off.x, off.y, { steps: 5 });
    await page.mouse.up();
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    // Down on the chat, up on the card, with the mouse's same pointerId: no press on the card either
    // (before session 45 the first one's pointerdown counted for this one's pointerup: pixel fired).
    await page.mouse.move(off.x, off.y - 20);
    await page.mouse.down();
    await page.mouse.move(spot.x, spot.y, { steps: 5 });
    await page.mouse.up();
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    // A press on the card still claims it.
    await page.mouse.down();
    const [landing] = await Promise.all([browser.context.waitForEvent('page'), page.mouse.up()]);
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await landing.close();
    await page.close();
  });

  describe('on a card in a closed shadow root or a same-origin frame (rev45 R5)', () => {
    /** The kit's own file on an empty page, a chat above the slot; nothing asked of adsvc. */
    async function kitPage(): Promise<Page> {
      const page = await browser.context.newPage();
      await page.setViewportSize(PHONE);
      await page.setContent('<!doctype html><body style="margin:0"><div id="chat" style="height:710px">The chat</div><div id="host"></div></body>');
      await page.addScriptTag({ path: path.join(packageRoot, 'public', 'sdk', 'render-v1.js') });
      return page;
    }
    /** Renders an ad into `slot`, recording `impression` (onImpression) and `click` (the window's, which then stops the navigation). */
    const drawCard = `(function (slot, clickWindow) {
      window.events = [];
      clickWindow.addEventListener('click', function (event) { window.events.push('click'); event.preventDefault(); }, true);
      var ad = { format: 'contextual_card', render: { title: 'Rain shells', body: 'Light, and dry all day long on any hill.', cta: 'Shop', brand_name: 'Outfitters' },
        tracking: { impression_url: 'http://127.0.0.1:9/i', click_url: 'http://127.0.0.1:9/c' } };
      window.adsvc.render(slot, ad, { onImpression: function () { window.events.push('impression'); } });
    })`;
    const events = (page: Page) => page.evaluate(() => (window as unknown as { events: string[] }).events);

    it('in a closed shadow root, a press on the card claims it in its pointerup, before the click (the document cannot see into the root)', async () => {
      const page = await kitPage();
      // About 30 px of the card on screen, at the bottom: under half, so only a press claims it.
      await page.evaluate(`(function () {
        var root = document.getElementById('host').attachShadow({ mode: 'closed' });
        var slot = document.createElement('div');
        root.appendChild(slot);
        ${drawCard}(slot, window);
      })()`);
      await sleep(SETTLE_MS);
      expect(await events(page)).toEqual([]);
      await page.mouse.move(180, 728);
      await page.mouse.down();
      await page.mouse.up();
      await expect.poll(() => events(page)).toEqual(['impression', 'click']);
      await page.close();
    });

    it('in a same-origin frame, a press that went down on the card and was dragged off, then one from the chat onto the card, claim nothing; a press on it then does', async () => {
      const page = await kitPage();
      await page.evaluate(`(function () {
        var frame = document.createElement('iframe');
        frame.style.cssText = 'position:fixed;inset:0;width:100%;height:100%;border:0';
        document.body.appendChild(frame);
        var chat = frame.contentDocument;
        chat.body.style.margin = '0';
        chat.body.innerHTML = '<div style="height:710px">The chat in a frame</div><div id="slot"></div>';
        ${drawCard}(chat.getElementById('slot'), frame.contentWindow);
      })()`);
      await sleep(SETTLE_MS);
      expect(await events(page)).toEqual([]);
      // The press from the chat onto the card clicks the frame's body, not the card: impressions counted.
      const impressions = async () => (await events(page)).filter((event) => event === 'impression').length;
      const spot = { x: 180, y: 730 };
      const off = { x: 180, y: 400 };
      await page.mouse.move(spot.x, spot.y);
      await page.mouse.down();
      await page.mouse.move(off.x, off.y, { steps: 5 });
      await page.mouse.up();
      await page.mouse.move(off.x, off.y - 20);
      await page.mouse.down();
      await page.mouse.move(spot.x, spot.y, { steps: 5 });
      await page.mouse.up();
      await sleep(SETTLE_MS);
      expect(await impressions()).toBe(0);
      await page.mouse.down();
      await page.mouse.up();
      await expect.poll(impressions).toBe(1);
      await page.close();
    });
  });

  it('fires it on Enter pressed on the focused card, and bills no click that fast', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    await page.setViewportSize(PHONE);
    // As a keyboard reader's Tab does, minus its scrolling the card into view.
    await page.locator('.adsvc-card a').evaluate((link: HTMLElement) => link.focus({ preventScroll: true }));
    await showPartOfCard(page, 0.3);
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    const [landing] = await Promise.all([browser.context.waitForEvent('page'), page.keyboard.press('Enter')]);
    await landing.waitForLoadState('load');
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'click')).length, { timeout: 15_000, interval: 200 }).toBe(1);
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'impression')).map((impression) => impression.ivt), { timeout: 15_000, interval: 200 }).toEqual(['']);
    // Enter opens the tab in the same keydown that fires the pixel: most often the click reaches the
    // service well within a second of its impression (click_too_fast).
    await expectPressedClickJudgedByItsDelay(demo.setup);
    await landing.close();
    await page.close();
  });
});

/**
 * A finger on a touch screen, driven through the DevTools protocol as Chromium's own touch input:
 * the browser turns the touches into pointer events, a click, or a scroll, as it does for a person's.
 */
async function touchScreen(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
  const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', x: number, y: number) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  return {
    /** Down at `from`, up 8 px at a time by `distance`, held still (no fling), then lifted. */
    async swipeUp(from: { x: number; y: number }, distance: number): Promise<void> {
      await touch('touchStart', from.x, from.y);
      for (let moved = 8; moved <= distance; moved += 8) {
        await touch('touchMove', from.x, from.y - moved);
        await sleep(16);
      }
      for (let held = 0; held < 10; held++) {
        await touch('touchMove', from.x, from.y - distance);
        await sleep(30);
      }
      await touch('touchEnd', from.x, from.y - distance);
    },
    async tap(at: { x: number; y: number }): Promise<void> {
      await touch('touchStart', at.x, at.y);
      await sleep(80);
      await touch('touchEnd', at.x, at.y);
    },
  };
}

describe.skipIf(skipBrowserTests)('render kit in Chromium: a touch on a sliver of the card (rev43 R3)', () => {
  it('a swipe that starts on the card\'s sliver and scrolls the page fires nothing; a tap on the sliver fires one valid impression', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    await page.setViewportSize(PHONE);
    const screen = await touchScreen(page);
    // What the browser tells the page about the finger on the card.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { cardPointerEvents: string[] }).cardPointerEvents = seen;
      for (const type of ['pointerdown', 'pointercancel', 'pointerup', 'click']) {
        document.querySelector('.adsvc-card')!.addEventListener(type, () => seen.push(type), true);
      }
    });
    const cardPointerEvents = () => page.evaluate(() => (window as unknown as { cardPointerEvents: string[] }).cardPointerEvents.join(' '));
    const visibleShare = () =>
      page.locator('.adsvc-card').evaluate((card) => {
        const { top, height } = card.getBoundingClientRect();
        return Math.max(0, Math.min(height, window.innerHeight - top)) / height;
      });

    // A 9 px sliver of the card at the bottom of the screen; the reader's thumb starts a scroll on it.
    const sliver = await showPartOfCard(page, 0.03);
    const scrolledFrom = await page.evaluate(() => window.scrollY);
    await screen.swipeUp(sliver, 96);
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 10_000 }).toBeGreaterThan(scrolledFrom + 40);
    // The browser took the touch for a scroll: the pointer went down on the card and was cancelled.
    await expect.poll(cardPointerEvents, { timeout: 10_000 }).toBe('pointerdown pointercancel');
    // Still under half of the card on screen, so nothing else claims it either.
    expect(await visibleShare()).toBeLessThan(0.5);
    await sleep(SETTLE_MS);
    expect(pixelRequests).toHaveLength(0);
    expect(await storedFetchMetadata(demo.setup, 'impression')).toEqual([]);

    // The reader's tap on the sliver: the card's link opens in a new tab, its impression counts.
    const tapAt = await showPartOfCard(page, 0.03);
    const [landing] = await Promise.all([browser.context.waitForEvent('page'), screen.tap(tapAt)]);
    await landing.waitForLoadState('load');
    expect(await cardPointerEvents()).toBe('pointerdown pointercancel pointerdown pointerup click');
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    expect(pixelRequests[0]!.resourceType()).toBe('image');
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'impression')).map((impression) => impression.ivt), { timeout: 15_000, interval: 200 }).toEqual(['']);
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'click')).length, { timeout: 15_000, interval: 200 }).toBe(1);
    await expect.poll(async () => (await reported(demo.setup)).impressions, { timeout: 15_000, interval: 200 }).toBe(1);
    await landing.close();
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit in Chromium: click stuffing', () => {
  it('bills none of the loads of click_url a page makes on its own (a hidden iframe, <link rel=prefetch>, fetch()), and the reader\'s click on the card once', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    const clickUrl = await page.evaluate(() => (window as unknown as { demoAd: { tracking: { click_url: string } } }).demoAd.tracking.click_url);
    const link = page.locator('.adsvc-card a');
    await link.scrollIntoViewIfNeeded();
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await pixelRequests[0]!.response();
    // Past the minimum delay, so that only how each request was made can tell them from a click.
    await sleep(MIN_CLICK_DELAY_MS + 200);

    // Script on the publisher's page (its own, or injected into it) loading the ad's click_url.
    await page.evaluate(async (url) => {
      const frame = document.createElement('iframe');
      frame.hidden = true;
      frame.src = url;
      document.body.append(frame);
      const prefetch = document.createElement('link');
      prefetch.rel = 'prefetch';
      prefetch.href = url;
      document.head.append(prefetch);
      await fetch(url, { credentials: 'include' }).catch(() => undefined);
    }, clickUrl);
    // All three reached the service, each as it was made: stored, never billed.
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'click')).length, { timeout: 15_000, interval: 200 }).toBe(3);
    const stuffed = await storedFetchMetadata(demo.setup, 'click');
    expect(stuffed.map((click) => click.ivt)).toEqual(['not_navigation', 'not_navigation', 'not_navigation']);
    expect(stuffed.map((click) => `${click.fetch_dest}/${click.fetch_mode}`).sort()).toEqual(['empty/cors', 'empty/no-cors', 'iframe/navigate']);
    await sleep(SETTLE_MS);
    expect(await reported(demo.setup)).toEqual({ impressions: 1, clicks: 0 });

    const [landing] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await landing.waitForLoadState('load');
    await expect.poll(() => reported(demo.setup), { timeout: 15_000, interval: 200 }).toEqual({ impressions: 1, clicks: 1 });
    await sleep(SETTLE_MS);
    expect(await reported(demo.setup)).toEqual({ impressions: 1, clicks: 1 });
    const valid = (await storedFetchMetadata(demo.setup, 'click')).filter((click) => click.ivt === '');
    expect(valid).toEqual([{ fetch_dest: 'document', fetch_mode: 'navigate', fetch_site: 'same-site', ivt: '' }]);
    await landing.close();
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit in Chromium: a scripted redirect', () => {
  it('bills no click when the page sends the reader to click_url by script (location.href), though it is a top-level navigation', async () => {
    const demo = await startDemo();
    const { page, pixelRequests } = await openChat(demo);
    const clickUrl = await page.evaluate(() => (window as unknown as { demoAd: { tracking: { click_url: string } } }).demoAd.tracking.click_url);
    await page.locator('.adsvc-card a').scrollIntoViewIfNeeded();
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await pixelRequests[0]!.response();
    await sleep(MIN_CLICK_DELAY_MS + 200);

    // A script of the page's own, run as the page runs it: not through page.evaluate, which Playwright
    // runs as a user gesture. Chromium marks a navigation with Sec-Fetch-User while the page holds a
    // reader's activation (5 s after the question was typed, or any click), so the script waits for it
    // to lapse, as a publisher's timer does.
    const cdp = await browser.context.newCDPSession(page);
    const runAsPage = (expression: string) => cdp.send('Runtime.evaluate', { expression, userGesture: false, returnByValue: true });
    await expect.poll(async () => (await runAsPage('navigator.userActivation.isActive')).result.value, { timeout: 10_000, interval: 250 }).toBe(false);
    await Promise.all([page.waitForURL(`${demo.url}/landing?**`), runAsPage(`location.href = ${JSON.stringify(clickUrl)}`)]);
    await expect.poll(async () => (await storedFetchMetadata(demo.setup, 'click')).length, { timeout: 15_000, interval: 200 }).toBe(1);
    // Chromium marks the navigation as the page's own: a document navigation without Sec-Fetch-User.
    expect(await storedFetchMetadata(demo.setup, 'click')).toEqual([
      { fetch_dest: 'document', fetch_mode: 'navigate', fetch_site: 'same-site', ivt: 'no_user_activation' },
    ]);
    await sleep(SETTLE_MS);
    expect(await reported(demo.setup)).toEqual({ impressions: 1, clicks: 0 });
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit in Chromium: creative text', () => {
  it('renders markup in a creative as text: nothing in it runs; a line break in the body is shown as one', async () => {
    const title = '<img src=x onerror=window.__xss=1>';
    const body = '<script>window.__xss=2</script>\n<b>bold?</b>';
    const cta = '<a href="javascript:1">Go</a>';
    const demo = await startDemo({ title, body, cta });
    const { page } = await openChat(demo);
    const card = page.locator('.adsvc-card');
    await card.scrollIntoViewIfNeeded();
    await sleep(500);

    expect(await card.locator('.adsvc-card__title').textContent()).toBe(title);
    expect(await card.locator('.adsvc-card__body').textContent()).toBe(body);
    // innerText is the text as laid out: a line break the CSS folded would read as a space.
    expect(await card.locator('.adsvc-card__body').innerText()).toBe(body);
    expect(await card.locator('.adsvc-card__cta').textContent()).toBe(cta);
    // The one image is the creative's own; no element came out of the text.
    expect(await card.locator('img').count()).toBe(1);
    expect(await card.locator('.adsvc-card__title *, .adsvc-card__body *, .adsvc-card__cta *').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit in Chromium: how the card looks', () => {
  it('shows a visible Sponsored label with the brand, title, body and call to action; screenshot kept in test-artifacts/', async () => {
    const demo = await startDemo();
    const { page } = await openChat(demo);
    const card = page.locator('.adsvc-card');
    await card.scrollIntoViewIfNeeded();
    await page.locator('.adsvc-card__image').evaluate((image: HTMLImageElement) => image.decode());

    expect(await card.locator('.adsvc-card__label').isVisible()).toBe(true);
    expect(await card.locator('.adsvc-card__label').textContent()).toBe('Sponsored');
    expect(await card.locator('.adsvc-card__brand').textContent()).toBe('Trailhead Outfitters');
    expect(await card.locator('.adsvc-card__title').textContent()).toBe(demoCreative.title);
    expect(await card.locator('.adsvc-card__cta').textContent()).toBe(demoCreative.cta);
    expect(await card.locator('.adsvc-card__url').textContent()).toBe('127.0.0.1');
    const box = (await card.boundingBox())!;
    expect(box.width).toBeGreaterThan(300);
    expect(box.height).toBeGreaterThan(80);

    mkdirSync(ARTIFACTS, { recursive: true });
    const cardShot = path.join(ARTIFACTS, 'render-kit-card.png');
    const pageShot = path.join(ARTIFACTS, 'render-kit-demo-page.png');
    await card.screenshot({ path: cardShot });
    await page.screenshot({ path: pageShot });
    expect(statSync(cardShot).size).toBeGreaterThan(1000);
    expect(statSync(pageShot).size).toBeGreaterThan(1000);
    await page.close();
  });
});
