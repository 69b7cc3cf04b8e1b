import { cpSync, mkdtempSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';
import { inject } from 'vitest';
import { openStores } from '../../src/runtime.js';
import { startServeChild } from './serveChild.js';
import { startTestAppOn, testConfig } from './testApp.js';
import { BROWSER_UA, clickUrl, pixelUrl, serveClaims, trackedLineItem, type TrackedLineItem } from './trackingFixtures.js';
import { newServeId } from '../../src/serving/serveId.js';
import { signTrackingToken } from '../../src/tracking/trackingToken.js';

/**
 * Tracking links sent to `adsvc serve` as a process of its own (serveChild.ts), on a DATA_DIR of the
 * test's with one CPC line item: what a restart or a clock of the process's own needs, which an app
 * inside the test runner cannot have. The child shares testConfig's secrets and tracking base, and
 * trusts the loopback proxy, so a link is sent on behalf of a reader's address as fromAddress does.
 */
const ADMIN_TOKEN = 'tracking-child-admin-token-0123456789';

/** A DATA_DIR with one CPC line item (1 USD a click), its engines closed again: a child opens it next. */
export async function trackedDataDir(): Promise<{ dataDir: string; item: TrackedLineItem }> {
  const dataDir = path.join(mkdtempSync(path.join(inject('testRoot'), 'tracking-child-')), 'data');
  cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
  const stores = await openStores(testConfig(dataDir));
  try {
    const ctx = await startTestAppOn(stores, dataDir);
    try {
      return { dataDir, item: await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 1 }) };
    } finally {
      await ctx.close();
    }
  } finally {
    await stores.close();
  }
}

/** `adsvc serve` on `dataDir` with `env` added (testConfig's secrets and tracking base, the loopback proxy trusted). */
export async function startTrackingChild(dataDir: string, env: Record<string, string> = {}) {
  const config = testConfig(dataDir);
  const child = await startServeChild(dataDir, ADMIN_TOKEN, {
    TRACKING_SECRET: config.TRACKING_SECRET!,
    TRACKING_BASE_URL: config.TRACKING_BASE_URL,
    SERVE_BASE_URL: config.SERVE_BASE_URL,
    TRUST_PROXY: 'loopback',
    // On a PostgreSQL server (the suite's second run) the catalog trackedDataDir made is there, not in DATA_DIR.
    ...(config.DATABASE_URL ? { DATABASE_URL: config.DATABASE_URL } : {}),
    ...env,
  });
  /**
   * The pixel or the click of `token` from `reader`, with the Fetch Metadata a browser sends (an
   * image, a navigation the reader started): the status. node:http, since fetch() says `cors`.
   */
  const link = (kind: 'pixel' | 'click', token: string, reader: string) =>
    new Promise<number>((resolve, reject) => {
      const fetchMetadata =
        kind === 'pixel'
          ? { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' }
          : { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };
      const request = get(`${child.url}${kind === 'pixel' ? pixelUrl(token) : clickUrl(token)}`, {
        headers: { 'x-forwarded-for': reader, 'user-agent': BROWSER_UA, ...fetchMetadata },
        timeout: 20_000,
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer to the ${kind} within 20 s`)));
      request.on('error', reject);
    });
  /** Stops the process as an operator does (SIGTERM: it writes its spool out first) and waits for it to end. */
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.child.exitCode !== null) return resolve();
      child.child.once('exit', () => resolve());
      child.child.kill('SIGTERM');
    });
  return { ...child, link, stop };
}

/**
 * A fresh serve of the CPC line item: its id, and its token signed with testConfig's secret. Its id
 * is one serving makes (time first) unless `serveId` says otherwise.
 */
export function cpcServe(item: TrackedLineItem, dataDir: string, serveId = newServeId(Date.now())): { serveId: string; token: string } {
  const claims = serveClaims(item, 'CPC', 1_000_000_000, { s: serveId });
  return { serveId: claims.s, token: signTrackingToken(claims, testConfig(dataDir).TRACKING_SECRET!) };
}

/** The line item's clicks as ClickHouse holds them, read once the children are gone: serve, reason, cost. */
export async function storedClicks(dataDir: string, lineItemId: string) {
  const stores = await openStores(testConfig(dataDir));
  try {
    const result = await stores.ch.client.query({
      query: `SELECT serve_id, ivt, unbilled, toFloat64(cost_nanos) AS cost_nanos
              FROM events_v1 WHERE line_item_id = {id:UUID} AND type = 'click' ORDER BY event_time`,
      query_params: { id: lineItemId },
      format: 'JSONEachRow',
    });
    return await result.json<{ serve_id: string; ivt: string; unbilled: string; cost_nanos: number }>();
  } finally {
    await stores.close();
  }
}
