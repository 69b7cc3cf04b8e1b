import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { buildConsole } from '../../src/console/buildConsole.js';
import { packageRoot } from '../../src/packageRoot.js';
import { openStores } from '../../src/runtime.js';
import type { Postgres } from '../../src/store/postgres.js';
import { testConfig, testStores } from '../helpers/testApp.js';
import { launchChromium, skipBrowserTests, type ChromiumSession } from './chromium.js';
import { freePort } from '../helpers/freePort.js';

/**
 * What every console test needs: the service on a loopback port with the console bundle built as
 * `npm run build` builds it (into this test file's own folder), Chromium, and the admin API to set
 * up tenants with.
 */
const ARTIFACTS = path.join(packageRoot, 'test-artifacts');

export interface ConsoleService {
  url: string;
  browser: ChromiumSession;
  adminToken: string;
  /** The service's own Postgres, for data too large to make through the API in a test (bulk SQL). */
  db: Postgres;
  /** A call to the service over HTTP with the admin token; fails the test on an error answer. */
  admin<T>(method: string, route: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/**
 * `databaseUrl`: a PostgreSQL server of the test's own (one it stops for an outage) instead of the
 * shared test stores.
 */
export async function startConsoleService({ databaseUrl }: { databaseUrl?: string } = {}): Promise<ConsoleService> {
  const consoleDir = mkdtempSync(path.join(inject('testRoot'), 'console-'));
  await buildConsole(consoleDir);
  const own = databaseUrl === undefined ? undefined : mkdtempSync(path.join(inject('testRoot'), 'console-data-'));
  const { stores, dataDir } = own === undefined ? await testStores() : { stores: await openStores(testConfig(own, { DATABASE_URL: databaseUrl! })), dataDir: own };
  // Free now: the tracking links must name the port before the app listens on it.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The browser is on loopback: let its traffic count, as a development install does.
  const config = testConfig(dataDir, { TRACKING_BASE_URL: url, SERVE_BASE_URL: url, IVT_ALLOW_PRIVATE_IPS: 'true', ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) });
  const secrets = { adminToken: config.ADMIN_TOKEN!, trackingSecret: config.TRACKING_SECRET! };
  const app = await buildApp({ config, db: stores.db, ch: stores.ch, secrets, consoleDir });
  await app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  return {
    url,
    browser,
    adminToken: secrets.adminToken,
    db: stores.db,
    admin: async <T>(method: string, route: string, body?: unknown) => {
      const response = await fetch(url + route, {
        method,
        headers: { authorization: `Bearer ${secrets.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(response.ok, `${method} ${route}: ${response.status}`).toBe(true);
      return (await response.json()) as T;
    },
    close: async () => {
      await browser.close();
      await app.close();
      if (own !== undefined) await stores.close();
    },
  };
}

/**
 * The test file's one console service: started before its tests (unless browser tests are
 * skipped) and closed after them. The object is filled in when it has started, so the tests read
 * it as they would startConsoleService's answer.
 */
export function withConsoleService(): ConsoleService {
  const service = {} as ConsoleService;
  beforeAll(async () => {
    if (skipBrowserTests) return;
    Object.assign(service, await startConsoleService());
  });
  afterAll(async () => {
    await service.close?.();
  });
  return service;
}

/**
 * Opens the console in a new tab, failing on any Content-Security-Policy violation or script error
 * the page reports (the console must work under its own CSP), and signs in as `role`.
 */
export async function signIn(
  service: ConsoleService,
  role: 'an advertiser' | 'a publisher' | 'an operator',
  secret: string,
  { keyboard = false } = {},
): Promise<Page> {
  const page = await service.browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  (page as Page & { consoleProblems: string[] }).consoleProblems = problems;
  const response = await page.goto(`${service.url}/console`);
  expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
  if (keyboard) {
    // With the keyboard only: Tab into the role group, arrows to the role, Tab to the field, Enter.
    await page.getByRole('radio', { name: 'an advertiser' }).waitFor();
    await page.keyboard.press('Tab');
    const roles = ['an advertiser', 'a publisher', 'an operator'];
    for (let step = 0; step < roles.indexOf(role); step++) await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: role }).isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.type(secret);
    await page.keyboard.press('Enter');
  } else {
    await page.getByRole('radio', { name: role }).check();
    await page.getByLabel(/API key|Publisher token|Admin token/).fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/**
 * Does `action` (a click on Show report, Refresh…) and waits until `answers` answers from the API
 * under `path` (a pathname or its start) have fully reached the page since (or failed to). A test
 * that asks again until the figures come waits this way between asks: never two asks in flight,
 * whose answers may come back in either order, and no read after the wait meets a table that a
 * pending ask has emptied or is about to redraw.
 */
export async function afterAnswers(page: Page, path: string, answers: number, action: () => Promise<unknown>): Promise<void> {
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const count = (request: Request) => {
    if (new URL(request.url()).pathname.startsWith(path) && ++seen === answers) done();
  };
  page.on('requestfinished', count);
  page.on('requestfailed', count);
  try {
    await action();
    await all;
  } finally {
    page.off('requestfinished', count);
    page.off('requestfailed', count);
  }
}

/** The CSP violations and script errors the page reported so far. */
export function consoleProblems(page: Page): string[] {
  return (page as Page & { consoleProblems: string[] }).consoleProblems;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** An axe-core scan of the page as it is now; returns the serious and critical violations (none expected). */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  // evaluate runs in the page without being an inline script, so the page's CSP stays as served.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document);
    return result.violations.map((violation) => ({ ...violation, nodes: violation.nodes.map((node) => node.target.join(' ')) }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.join(', ')}`);
}

/** Elements sticking out of the viewport on the right, except inside boxes that scroll (wide tables). */
function elementsWiderThanScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // A table scrolls in its .table-wrap, so what is inside may be wider than the screen; not its
    // caption, text to read whole: one wider than its box is cut at the box's edge.
    const outside = (element: Element) => {
      const wrap = element.closest('.table-wrap');
      if (!wrap) return element.getBoundingClientRect().right > width + 1;
      return element.tagName === 'CAPTION' && element.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1;
    };
    return [...document.querySelectorAll('body *')]
      .filter(outside)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className} (${Math.round(element.getBoundingClientRect().right)} px)`)
      .slice(0, 5);
  });
}

/**
 * Screenshots of the page at 1280 and 390 px wide, light and dark, into test-artifacts/; also checks
 * that nothing makes the page wider than the screen at 390 px (tables scroll inside their box), and
 * scans each with axe-core: a table that scrolls at one width only (most at 390 px) must be
 * reachable by keyboard there.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-1280-${scheme}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page), `${name} at 1280 px, ${scheme}`).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    // Layout follows the new width within a frame or two (the chart on its ResizeObserver).
    await expect.poll(() => elementsWiderThanScreen(page), { timeout: 5_000 }).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-390-${scheme}.png`), fullPage: true });
    expect(await seriousAccessibilityViolations(page), `${name} at 390 px, ${scheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

export interface AdvertiserTenant {
  organizationId: string;
  userId: string;
  apiKey: string;
}

/** An organization with one user and an API key carrying both permissions, made through the admin API. */
export async function createAdvertiser(service: ConsoleService, name: string): Promise<AdvertiserTenant> {
  const org = await service.admin<{ data: { id: string } }>('POST', '/v1/admin/organizations', { name });
  const user = await service.admin<{ data: { id: string } }>('POST', `/v1/admin/organizations/${org.data.id}/users`, { email: `owner@${org.data.id}.test` });
  const key = await service.admin<{ data: { key: string } }>('POST', `/v1/admin/organizations/${org.data.id}/api-keys`, { permissions: ['campaigns', 'reporting'] });
  return { organizationId: org.data.id, userId: user.data.id, apiKey: key.data.key };
}

/** A call to the advertiser API with the tenant's key; fails the test on an error answer. */
export async function advertiserApi<T>(service: ConsoleService, advertiser: AdvertiserTenant, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(service.url + route, {
    method,
    headers: { 'x-api-key': advertiser.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok, `${method} ${route}: ${response.status} ${await response.clone().text()}`).toBe(true);
  return (await response.json()) as T;
}

/** The id of the advertiser's line item, for one with a single campaign of a single line item (createActiveCampaign's "Hikers"). */
export async function onlyLineItem(service: ConsoleService, advertiser: AdvertiserTenant): Promise<string> {
  const read = async (route: string) => (await advertiserApi<{ data: { id: string }[] }>(service, advertiser, 'GET', route)).data;
  const [campaign] = await read('/v1/advertiser/campaigns');
  const [lineItem] = await read(`/v1/advertiser/campaigns/${campaign!.id}/line-items`);
  return lineItem!.id;
}

/** Events through the admin import (classified as live ones are): more than a test can make with a browser. */
export async function importEvents(service: ConsoleService, lines: object[]): Promise<{ accepted: number; invalid: number; rejected: number }> {
  const response = await fetch(`${service.url}/v1/admin/events/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/x-ndjson' },
    body: lines.map((line) => JSON.stringify(line)).join('\n'),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { accepted: number; invalid: number; rejected: number } }).data;
}

export interface PublisherTenant {
  publisherId: string;
  token: string;
  placementId: string;
}

/**
 * A publisher with its token and one uncertified placement, made through the admin API. The id gets
 * a random suffix: on a PostgreSQL server every run and test file shares one database.
 */
export async function createPublisher(service: ConsoleService, placementName: string): Promise<PublisherTenant> {
  const placementId = `${placementName}-${randomUUID().slice(0, 8)}`;
  const publisher = await service.admin<{ data: { id: string; token: string } }>('POST', '/v1/admin/publishers', { name: `Publisher of ${placementId}` });
  await service.admin('POST', `/v1/admin/publishers/${publisher.data.id}/placements`, { id: placementId, name: `Chat sidebar ${placementId}` });
  return { publisherId: publisher.data.id, token: publisher.data.token, placementId };
}

/**
 * The tracking links of an ad for the publisher's placement, asked for as its backend does until
 * the serving index has an eligible one.
 */
export async function servedTracking(service: ConsoleService, publisher: PublisherTenant, query: string): Promise<{ impression_url: string; click_url: string }> {
  let tracking: { impression_url: string; click_url: string } | undefined;
  await expect
    .poll(async () => {
      const response = await fetch(`${service.url}/v1/serve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publisher.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ placement_id: publisher.placementId, context: { query, response: '' } }),
      });
      tracking = response.ok ? ((await response.json()) as { ad: { tracking: typeof tracking } | null }).ad?.tracking : undefined;
      return tracking !== undefined;
    }, { timeout: 15_000, interval: 100 })
    .toBe(true);
  return tracking!;
}

/**
 * An ad served on the publisher's placement (servedTracking), then a person's view of it: Chromium
 * loads the impression pixel as an image from a page, as the render kit does.
 */
export async function serveAndView(service: ConsoleService, publisher: PublisherTenant, query: string): Promise<{ click_url: string }> {
  const tracking = await servedTracking(service, publisher, query);
  const page = await service.browser.context.newPage();
  const pixel = page.waitForResponse((response) => response.url() === tracking.impression_url);
  await page.setContent(`<img alt="" src="${tracking.impression_url}">`);
  expect((await pixel).status()).toBe(200);
  await page.close();
  return { click_url: tracking.click_url };
}

/** An active CPC campaign of the advertiser on one placement, made through the advertiser API. */
export async function createActiveCampaign(service: ConsoleService, advertiser: AdvertiserTenant, placementId: string): Promise<void> {
  const composed = await advertiserApi<{ data: { campaign: { id: string } } }>(service, advertiser, 'POST', '/v1/advertiser/campaigns/compose', {
    campaign: { name: 'Rain shells', brand_name: 'Trailhead Outfitters', user_id: advertiser.userId },
    line_item: {
      title: 'Hikers',
      budget: { daily: 50, currency: 'USD' },
      bids: { bid_type: 'CPC', bid_value: 0.5 },
      targeting: { placements: { include: [placementId] } },
      creatives: [{ format: 'contextual_card', title: 'Stay dry', body: 'Packable rain shells.', cta: 'Shop', destination_url: `${service.url}/healthz` }],
    },
  });
  await advertiserApi(service, advertiser, 'POST', `/v1/advertiser/campaigns/${composed.data.campaign.id}/activate`, {});
}
