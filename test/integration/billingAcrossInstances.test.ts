import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStores, type Stores } from '../../src/runtime.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { canMount, fillDisk, mountTmpfs } from '../helpers/tmpfs.js';
import { startTestApp, startTestAppOn, testConfig, testStores, type TestContext } from '../helpers/testApp.js';
import {
  ADDRESSES,
  fromAddress,
  rollupOf,
  serveClaims,
  signedToken,
  trackedLineItem,
  waitForEvents,
  waitPastClickDelay,
  type TrackedLineItem,
} from '../helpers/trackingFixtures.js';

/**
 * One billable impression and one billable click per serve, whichever instance a request reaches:
 * two apps on the same Postgres and ClickHouse, each with its own DATA_DIR (its spool), and an app
 * restarted on the same stores and spool in between. The duplicate is stored with its reason and
 * never billed; when ClickHouse cannot say whether a serve was billed, nothing is billed twice.
 */
const IMPRESSION_PRICE = 2_500_000;
const CLICK_PRICE = 400_000_000;
const env = { TRUST_PROXY: '127.0.0.1' };

let a: TestContext;
let b: TestContext;

/** A second instance: the same stores, its own DATA_DIR. */
async function otherInstance(stores: Stores): Promise<TestContext> {
  return startTestAppOn(stores, mkdtempSync(path.join(inject('testRoot'), 'instance-')), env);
}

beforeAll(async () => {
  a = await startTestApp(env);
  b = await otherInstance(a.stores);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

const pixel = (ctx: TestContext, token: string) => fromAddress(ctx, `${IMPRESSION_PATH}${token}`, ADDRESSES.comcastResidential);
const click = (ctx: TestContext, token: string) => fromAddress(ctx, `${CLICK_PATH}${token}`, ADDRESSES.comcastResidential);

function impressionsOf(events: Array<{ type: string; ivt: string }>) {
  return events.filter((event) => event.type === 'impression').map((event) => event.ivt);
}
function clicksOf(events: Array<{ type: string; ivt: string }>) {
  return events.filter((event) => event.type === 'click').map((event) => event.ivt);
}

/** A CPC serve with its impression answered by `at` and stored; resolves once a click on it would not be too fast. */
async function seenServe(item: TrackedLineItem, at: TestContext): Promise<string> {
  const token = signedToken(at, serveClaims(item, 'CPC', CLICK_PRICE));
  expect((await pixel(at, token)).statusCode).toBe(200);
  const answeredAt = Date.now();
  await waitForEvents(at, item.lineItemId, 1);
  await waitPastClickDelay(answeredAt);
  return token;
}

describe('two instances sharing Postgres and ClickHouse', () => {
  it('bills an impression once: its duplicate at the other instance is stored as duplicate, unbilled', async () => {
    const item = await trackedLineItem(a);
    const token = signedToken(a, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    expect((await pixel(a, token)).statusCode).toBe(200);
    // The window that remains: until the first instance has written its event to ClickHouse.
    await waitForEvents(a, item.lineItemId, 1);
    expect((await pixel(b, token)).statusCode).toBe(200);
    expect(impressionsOf(await waitForEvents(a, item.lineItemId, 2))).toEqual(['', 'duplicate']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });

  it('bills a click once: its duplicate at the other instance is stored as duplicate, unbilled', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    expect((await click(a, token)).statusCode).toBe(302);
    await waitForEvents(a, item.lineItemId, 2);
    expect((await click(b, token)).statusCode).toBe(302);
    // The impression fired again at the other instance is a duplicate too.
    expect((await pixel(b, token)).statusCode).toBe(200);
    const events = await waitForEvents(a, item.lineItemId, 4);
    expect(clicksOf(events)).toEqual(['', 'duplicate']);
    expect(impressionsOf(events)).toEqual(['', 'duplicate']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });

  it('refuses to start a second app on a spool another one holds, so neither takes the other\'s events', async () => {
    await expect(startTestApp(env)).rejects.toThrow(/event spool .* is in use/);
    const item = await trackedLineItem(a);
    const token = signedToken(a, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    expect((await pixel(a, token)).statusCode).toBe(200);
    expect(impressionsOf(await waitForEvents(a, item.lineItemId, 1))).toEqual(['']);
  });
});

describe('a restart in between', () => {
  it('does not bill the duplicate impression or click that reaches the restarted app', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    expect((await click(a, token)).statusCode).toBe(302);
    await a.close();
    a = await startTestApp(env);
    expect((await pixel(a, token)).statusCode).toBe(200);
    expect((await click(a, token)).statusCode).toBe(302);
    const events = await waitForEvents(a, item.lineItemId, 4);
    expect(impressionsOf(events)).toEqual(['', 'duplicate']);
    expect(clicksOf(events)).toEqual(['', 'duplicate']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });
});
