import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { freePort } from '../helpers/freePort.js';
import { packageRoot } from '../../src/packageRoot.js';
import { seedDemo, type DemoSetup } from '../../src/demo/demoSeed.js';
import { demoCreative } from '../../src/demo/demoConversation.js';
import { documentedSnippet, THE_ADSVC_ORIGIN_IN_THE_DOCS } from '../../src/demo/documentedSnippet.js';
import { RENDER_SCRIPT_PATH } from '../../src/sdk/renderScriptRoute.js';
import { launchChromium, skipBrowserTests, type ChromiumSession } from './chromium.js';
import { seriousAccessibilityViolations } from './consoleKit.js';

/**
 * The render kit on publishers' pages as they are in the wild, which the demo page is not: a strict
 * Content-Security-Policy, a chat widget drawing its messages in a shadow root, a right-to-left page,
 * and the snippet of docs/rendering.md copied as written, with adsvc up, unreachable or missing the
 * kit. The publisher here is a plain HTTP server on another port; its backend asks adsvc's
 * /v1/serve for each ad, as the docs tell it to.
 */

let ctx: TestContext;
let adsvcUrl: string;
let browser: ChromiumSession;
let setup: DemoSetup;
let publisher: Server;
let publisherUrl: string;
/** A host that accepts connections and never answers: adsvc hanging, as a network outage does. */
let hangingHost: TcpServer;
let hangingUrl: string;
const hangingSockets: Socket[] = [];
let flakyKitRequests = 0;
/** Each page's HTML and headers, by path: the test writes them, the publisher's server answers them. */
const pages = new Map<string, { html: string; headers?: Record<string, string> }>();

/** What a page on the publisher's origin loads as /app.js: ask the backend for an ad, render it where the body says. */
const APP_SCRIPT = `
fetch('/my-backend/ad-for-this-answer', { method: 'POST' })
  .then(function (response) { return response.json(); })
  .then(function (answer) {
    var slot = document.getElementById('ad-slot');
    if (document.body.dataset.where === 'shadow') {
      var root = document.getElementById('chat-widget').attachShadow({ mode: 'open' });
      slot = document.createElement('div');
      root.appendChild(slot);
    }
    window.card = adsvc.render(slot, answer.ad).element;
    document.body.dataset.adState = 'rendered';
  });
`;

async function publisherRoutes(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', publisherUrl);
  if (url.pathname === '/my-backend/ad-for-this-answer' && request.method === 'POST') {
    const served = await fetch(`${adsvcUrl}/v1/serve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.publisherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        placement_id: setup.placementId,
        context: { query: 'hiking in the rain', response: 'Pack a rain shell.' },
        user: { ip: '127.0.0.1', user_agent: request.headers['user-agent'] ?? '' },
      }),
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end(await served.text());
    return;
  }
  // The kit, from a host that fails its first request (adsvc restarting) and answers the next ones.
  if (url.pathname === `/flaky-kit${RENDER_SCRIPT_PATH}`) {
    flakyKitRequests += 1;
    if (flakyKitRequests === 1) response.writeHead(503).end();
    else response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(path.join(packageRoot, 'public', 'sdk', 'render-v1.js')));
    return;
  }
  if (url.pathname === '/app.js') {
    response.writeHead(200, { 'content-type': 'text/javascript' }).end(APP_SCRIPT);
    return;
  }
  if (url.pathname === '/image.svg') {
    response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>');
    return;
  }
  const page = pages.get(url.pathname);
  if (page === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...page.headers }).end(page.html);
}

beforeAll(async () => {
  if (skipBrowserTests) return;
  const port = await freePort();
  adsvcUrl = `http://127.0.0.1:${port}`;
  ctx = await startTestApp({ TRACKING_BASE_URL: adsvcUrl, SERVE_BASE_URL: adsvcUrl, IVT_ALLOW_PRIVATE_IPS: 'true' });
  await ctx.app.listen({ port, host: '127.0.0.1' });

  publisher = createHttpServer((request, response) => {
    publisherRoutes(request, response).catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => publisher.listen(0, '127.0.0.1', resolve));
  publisherUrl = `http://localhost:${(publisher.address() as { port: number }).port}`;
  hangingHost = createTcpServer((socket) => hangingSockets.push(socket));
  await new Promise<void>((resolve) => hangingHost.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hangingHost.address() as { port: number }).port}`;

  setup = await seedDemo({
    adsvcUrl,
    adminToken: ctx.secrets.adminToken,
    creative: { ...demoCreative, destination_url: `${publisherUrl}/landing`, image_url: `${publisherUrl}/image.svg` },
  });
  // The new campaign reaches the serving index within a refresh; the pages should not race it.
  // (expect.poll is for tests only.)
  for (let waited = 0; ; waited += 100) {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/serve',
      headers: { authorization: `Bearer ${setup.publisherToken}` },
      payload: { placement_id: setup.placementId, context: { query: 'hiking', response: '' } },
    });
    if (response.statusCode === 200 && response.json().ad !== null) break;
    if (waited > 15_000) throw new Error(`the demo campaign is not served after 15 s: ${response.body}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const socket of hangingSockets) socket.destroy();
  await new Promise((resolve) => hangingHost?.close(resolve) ?? resolve(undefined));
  await new Promise((resolve) => publisher?.close(resolve) ?? resolve(undefined));
  await ctx?.close();
});

interface Opened {
  page: Page;
  pageErrors: string[];
  warnings: string[];
  pixelRequests: string[];
}

/** Serves `html` (with `headers`) on the publisher's origin and opens it. */
async function openPage(name: string, html: string, headers?: Record<string, string>): Promise<Opened> {
  pages.set(`/${name}`, { html, headers });
  const page = await browser.context.newPage();
  const opened: Opened = { page, pageErrors: [], warnings: [], pixelRequests: [] };
  page.on('pageerror', (error) => opened.pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'warning') opened.warnings.push(message.text());
  });
  page.on('request', (request) => {
    if (request.url().startsWith(`${adsvcUrl}/v1/t/i/`)) opened.pixelRequests.push(request.url());
  });
  await page.goto(`${publisherUrl}/${name}`, { waitUntil: 'commit' });
  return opened;
}

/**
 * A short chat page (the card is in view at once) loading the kit and /app.js from files, as a strict
 * policy requires. `flexRow` puts the slot in a flex row beside an avatar, sized by its content.
 */
function chatPage(options: { dir?: 'rtl'; where?: 'shadow'; colorScheme?: 'dark'; flexRow?: boolean } = {}): string {
  const scheme = options.colorScheme ? `<meta name="color-scheme" content="${options.colorScheme}">` : '';
  const slot = options.flexRow
    ? '<div style="display:flex;gap:12px;align-items:flex-start"><div style="flex:none;width:40px;height:40px;border-radius:50%;background:#ccc"></div><div id="ad-slot"></div></div>'
    : '<div id="ad-slot"></div>';
  return `<!doctype html><html lang="en" dir="${options.dir ?? 'ltr'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Chat</title>${scheme}
<script src="${adsvcUrl}${RENDER_SCRIPT_PATH}"></script></head>
<body data-where="${options.where ?? 'document'}"><main><p>Pack a rain shell.</p>${slot}<div id="chat-widget"></div></main>
<script src="/app.js"></script></body></html>`;
}

async function renderedCard(page: Page) {
  await page.waitForSelector('body[data-ad-state="rendered"]');
  return page.evaluateHandle(() => (window as unknown as { card: HTMLElement }).card);
}

/** The card's own look, read from the browser: what the kit's stylesheet sets when it applies. */
async function cardStyle(page: Page) {
  const card = await renderedCard(page);
  return card.evaluate((element) => ({
    borderRadius: getComputedStyle(element).borderRadius,
    linkDisplay: getComputedStyle(element.querySelector('.adsvc-card__link')!).display,
    labelWeight: getComputedStyle(element.querySelector('.adsvc-card__label')!).fontWeight,
  }));
}

const STYLED = { borderRadius: '12px', linkDisplay: 'flex', labelWeight: '600' };

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: the card\'s stylesheet', () => {
  it('applies under a strict Content-Security-Policy (style-src \'self\', no inline styles allowed)', async () => {
    const { page, pixelRequests } = await openPage('strict-csp', chatPage(), {
      'content-security-policy': `default-src 'self'; script-src 'self' ${adsvcUrl}; img-src 'self' ${adsvcUrl}; style-src 'self'; connect-src 'self'`,
    });
    expect(await cardStyle(page)).toEqual(STYLED);
    // The policy lets the pixel through (img-src names adsvc), so the card is counted as it is seen.
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await page.close();
  });

  it('applies to a card drawn inside a shadow root (a chat widget built as a web component)', async () => {
    const { page } = await openPage('shadow-root', chatPage({ where: 'shadow' }));
    expect(await cardStyle(page)).toEqual(STYLED);
    await page.close();
  });

  it('sets the brand\'s separator apart on the inline end: on its left in a right-to-left page', async () => {
    const { page } = await openPage('rtl', chatPage({ dir: 'rtl' }));
    const card = await renderedCard(page);
    const dot = await card.evaluate((element) => {
      const style = getComputedStyle(element.querySelector('.adsvc-card__brand')!, '::before');
      return { content: style.content, left: style.marginLeft, right: style.marginRight };
    });
    expect(dot).toEqual({ content: '"·"', left: '8px', right: '0px' });
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: a narrow card (pub42 P6)', () => {
  /** Where the card's parts are, relative to the card's left edge, and whether it took the narrow layout. */
  async function layout(page: Page) {
    const card = await renderedCard(page);
    await card.evaluate((element) => (element.querySelector('.adsvc-card__image') as HTMLImageElement).decode().catch(() => undefined));
    return card.evaluate((element) => {
      const box = (name: string) => element.querySelector(`.adsvc-card__${name}`)!.getBoundingClientRect();
      const cardBox = element.getBoundingClientRect();
      return {
        narrow: element.classList.contains('adsvc-card--narrow'),
        width: cardBox.width,
        height: cardBox.height,
        image: { left: box('image').left - cardBox.left, right: box('image').right - cardBox.left, width: box('image').width },
        title: { left: box('title').left - cardBox.left },
        body: { left: box('body').left - cardBox.left, top: box('body').top, width: box('body').width },
        imageBottom: box('image').bottom,
      };
    });
  }

  for (const host of [{ name: 'a plain page', options: {} }, { name: 'a shadow root', options: { where: 'shadow' as const } }, { name: 'a flex row', options: { flexRow: true } }]) {
    it(`in ${host.name}: at 360 px a small image beside the title and the body under both, full width; at 1280 px the image beside all the text, as before`, async () => {
      const { page } = await openPage(`narrow-${host.name.replaceAll(' ', '-')}`, chatPage(host.options));
      await page.setViewportSize({ width: 360, height: 740 });
      await expect.poll(async () => (await layout(page)).narrow, { timeout: 10_000 }).toBe(true);
      const narrow = await layout(page);
      expect(narrow.image.width).toBe(56);
      expect(narrow.title.left).toBeGreaterThan(narrow.image.right);
      // The body starts where the image does, below it, and takes the card's width.
      expect(narrow.body.left).toBeCloseTo(narrow.image.left, 0);
      expect(narrow.body.top).toBeGreaterThanOrEqual(narrow.imageBottom);
      expect(narrow.body.width).toBeGreaterThan(narrow.width - 2 * narrow.image.left - 1);
      // Not collapsed in a slot sized by its content (a flex row's item): as wide as the row leaves it.
      expect(narrow.width).toBeGreaterThan(250);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);

      await page.setViewportSize({ width: 1280, height: 720 });
      await expect.poll(async () => (await layout(page)).narrow, { timeout: 10_000 }).toBe(false);
      const wide = await layout(page);
      expect(wide.width).toBe(560);
      expect(wide.image.width).toBe(88);
      expect(wide.body.left).toBeGreaterThan(wide.image.right);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.close();
    });
  }
});

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: the link read by a screen reader (pub42 P7)', () => {
  it('says the link opens a new tab, as its description; its name stays the card\'s visible text', async () => {
    const { page } = await openPage('accessible-name', chatPage());
    await renderedCard(page);
    // Chromium's own accessibility tree: what a screen reader is given.
    const cdp = await browser.context.newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value: string }; name?: { value: string }; description?: { value: string } }[] };
    const links = nodes.filter((node) => node.role?.value === 'link').map((node) => ({ name: node.name?.value ?? '', description: node.description?.value ?? '' }));
    expect(links).toHaveLength(1);
    expect(links[0]!.description).toBe('opens in a new tab');
    expect(links[0]!.name).toMatch(/^Sponsored\b/);
    expect(links[0]!.name).toContain(demoCreative.title);
    expect(links[0]!.name).not.toContain('new tab');
    // The note is for assistive technology only: nothing of it is drawn.
    expect(await page.locator('.adsvc-card').innerText()).not.toContain('new tab');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: colour scheme', () => {
  it('draws a dark card on a page that declares a dark colour scheme, and a light one on a page that declares none', async () => {
    const colours = async (name: string, html: string) => {
      const { page } = await openPage(name, html);
      const card = await renderedCard(page);
      const seen = await card.evaluate((element) => ({
        background: getComputedStyle(element).backgroundColor,
        text: getComputedStyle(element).color,
        label: getComputedStyle(element.querySelector('.adsvc-card__label')!).color,
      }));
      await page.close();
      return seen;
    };
    expect(await colours('dark', chatPage({ colorScheme: 'dark' }))).toEqual({ background: 'rgb(22, 27, 34)', text: 'rgb(230, 237, 243)', label: 'rgb(145, 152, 161)' });
    expect(await colours('no-scheme', chatPage())).toEqual({ background: 'rgb(255, 255, 255)', text: 'rgb(31, 35, 40)', label: 'rgb(87, 96, 106)' });
  });
});

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: a pixel the page refuses', () => {
  it('says in the console that the impression is not counted when img-src does not allow adsvc', async () => {
    const { page, pixelRequests, warnings } = await openPage('img-src-self', chatPage(), {
      'content-security-policy': `default-src 'self'; script-src 'self' ${adsvcUrl}; img-src 'self'; style-src 'self'; connect-src 'self'`,
    });
    await renderedCard(page);
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => warnings.find((text) => text.includes('impression pixel did not load')), { timeout: 10_000 }).toContain(`img-src must allow ${adsvcUrl}`);
    await page.close();
  });
});

/** The first js block of docs/rendering.md: the snippet's lines for a page with Trusted Types. */
function documentedTrustedTypesLines(): string {
  const docs = readFileSync(path.join(packageRoot, 'docs', 'rendering.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(docs);
  if (block === null) throw new Error('docs/rendering.md has no js block');
  return block[1]!;
}

/** The line of the snippet that the Trusted Types lines replace. */
const SNIPPET_SCRIPT_SRC = `script.src = '${THE_ADSVC_ORIGIN_IN_THE_DOCS}${RENDER_SCRIPT_PATH}';`;

/**
 * A new answer arriving in an open chat: the answer, its slot and the documented snippet appended
 * before the composer, the snippet run as the inline script it is.
 */
async function addAnswer(page: Page, kitOrigin: string): Promise<void> {
  const snippet = documentedSnippet(kitOrigin);
  const code = /<script>([\s\S]*)<\/script>/.exec(snippet)![1]!;
  await page.evaluate((source) => {
    const answer = document.createElement('p');
    answer.className = 'answer';
    answer.textContent = 'Another answer.';
    const slot = document.createElement('div');
    slot.className = 'ad-slot';
    const script = document.createElement('script');
    script.textContent = source;
    document.getElementById('composer')!.before(answer, slot, script);
  }, code);
}

/**
 * A chat page with `answers` answers, the documented snippet pasted below each, and the chat's
 * composer after them, the kit taken from `kitOrigin`.
 */
function pageWithTheSnippet(kitOrigin: string, answers = 1): string {
  const snippet = documentedSnippet(kitOrigin);
  const chat = Array.from({ length: answers }, (_, index) => `<p class="answer">Answer ${index + 1}: pack a rain shell.</p>${snippet}`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chat</title></head>
<body>${chat}<textarea id="composer"></textarea></body></html>`;
}

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: the snippet of docs/rendering.md, as written', () => {
  it('renders the ad and fires its pixel', async () => {
    const { page, pixelRequests, pageErrors } = await openPage('snippet', pageWithTheSnippet(adsvcUrl));
    await page.waitForSelector('.answer + .ad-slot .adsvc-card');
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('pasted under two answers of one page, renders each answer\'s ad into its own slot and counts each once', async () => {
    const { page, pixelRequests, pageErrors } = await openPage('snippet-two-answers', pageWithTheSnippet(adsvcUrl, 2));
    // Each answer's slot (the element right after it) gets one card: none lands in the other's.
    const cardsPerSlot = () => page.evaluate(() => Array.from(document.querySelectorAll('.answer'), (answer) => answer.nextElementSibling!.querySelectorAll('.adsvc-card').length));
    await expect.poll(cardsPerSlot, { timeout: 15_000 }).toEqual([1, 1]);
    // Two serves, two cards in view: each impression pixel fires, once.
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(2);
    expect(new Set(pixelRequests).size).toBe(2);
    expect(await page.locator('.adsvc-card').count()).toBe(2);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('leaves the chat working when adsvc does not answer: the page after the snippet loads while the kit request hangs', async () => {
    const { page, pageErrors } = await openPage('snippet-adsvc-hangs', pageWithTheSnippet(hangingUrl));
    // The kit's request never completes; a parser-blocking script would hold the composer and
    // DOMContentLoaded back until the browser gave up on it (minutes).
    // (The load event itself waits for every script the page inserted, this one too: 'interactive'.)
    await expect.poll(() => page.evaluate(() => document.readyState), { timeout: 15_000, interval: 200 }).not.toBe('loading');
    expect(await page.locator('#composer').count()).toBe(1);
    expect(await page.locator('.adsvc-card').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('throws nothing when the kit cannot be loaded (404): no card, no error', async () => {
    const { page, pageErrors } = await openPage('snippet-no-kit', pageWithTheSnippet(`${adsvcUrl}/no-such-kit`));
    await expect.poll(() => page.evaluate(() => document.readyState), { timeout: 15_000, interval: 200 }).not.toBe('loading');
    // The ad's own request has been answered by then: what the snippet does with the missing kit shows now.
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName(`${location.origin}/my-backend/ad-for-this-answer`).length), { timeout: 10_000 }).toBe(1);
    // An error thrown from the snippet's promise would be reported within this; there is nothing to wait for instead.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await page.locator('.adsvc-card').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(skipBrowserTests)('render kit on publishers\' pages: the snippet when the kit does not load (rev42 R4, R11)', () => {
  const noAd = (warnings: string[]) => warnings.filter((text) => text.startsWith('adsvc: no ad under this answer')).length;

  it('tries a kit that failed to load again with the next answer, which gets its ad', async () => {
    flakyKitRequests = 0;
    const { page, pixelRequests, pageErrors, warnings } = await openPage('snippet-kit-fails-once', pageWithTheSnippet(`${publisherUrl}/flaky-kit`));
    await expect.poll(() => noAd(warnings), { timeout: 15_000 }).toBe(1);
    expect(flakyKitRequests).toBe(1);
    await addAnswer(page, `${publisherUrl}/flaky-kit`);
    const cardsPerSlot = () => page.evaluate(() => Array.from(document.querySelectorAll('.answer'), (answer) => answer.nextElementSibling!.querySelectorAll('.adsvc-card').length));
    await expect.poll(cardsPerSlot, { timeout: 15_000 }).toEqual([0, 1]);
    expect(flakyKitRequests).toBe(2);
    await expect.poll(() => pixelRequests.length, { timeout: 10_000 }).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('gives up after three failed loads of a page: a fourth answer does not ask for the kit again', async () => {
    const kitRequests: string[] = [];
    const { page, pageErrors, warnings } = await openPage('snippet-kit-always-fails', pageWithTheSnippet(`${adsvcUrl}/no-such-kit`));
    page.on('request', (request) => {
      if (request.url().includes('/no-such-kit/')) kitRequests.push(request.url());
    });
    for (let answers = 1; answers <= 4; answers += 1) {
      await expect.poll(() => noAd(warnings), { timeout: 15_000 }).toBe(answers);
      if (answers < 4) await addAnswer(page, `${adsvcUrl}/no-such-kit`);
    }
    // The first request may have gone before the listener was there: count the page's own record.
    const loads = await page.evaluate(() => performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/no-such-kit/')).length);
    expect(loads).toBe(3);
    expect(kitRequests.length).toBeLessThanOrEqual(3);
    expect(await page.locator('.adsvc-card').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('under Trusted Types: says in the console why there is no ad; with the documented policy lines, renders it', async () => {
    const refused = await openPage('snippet-trusted-types', pageWithTheSnippet(adsvcUrl), { 'content-security-policy': "require-trusted-types-for 'script'" });
    await expect.poll(() => refused.warnings.find((text) => text.startsWith('adsvc: no ad under this answer')), { timeout: 15_000 }).toContain('TrustedScriptURL');
    expect(await refused.page.locator('.adsvc-card').count()).toBe(0);
    expect(refused.pageErrors).toEqual([]);
    await refused.page.close();

    const html = pageWithTheSnippet(adsvcUrl).replace(SNIPPET_SCRIPT_SRC.replace(THE_ADSVC_ORIGIN_IN_THE_DOCS, adsvcUrl), documentedTrustedTypesLines().replaceAll(THE_ADSVC_ORIGIN_IN_THE_DOCS, adsvcUrl));
    expect(html).toContain('createScriptURL');
    const allowed = await openPage('snippet-trusted-types-policy', html, { 'content-security-policy': "require-trusted-types-for 'script'; trusted-types adsvc" });
    await allowed.page.waitForSelector('.answer + .ad-slot .adsvc-card');
    await expect.poll(() => allowed.pixelRequests.length, { timeout: 10_000 }).toBe(1);
    expect(allowed.warnings).toEqual([]);
    expect(allowed.pageErrors).toEqual([]);
    await allowed.page.close();
  });
});
