import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Stores } from '../../src/runtime.js';
import { openClickHouse } from '../../src/store/clickhouse.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { SPOOL_COLUMNS, spoolLine } from '../../src/tracking/eventSpool.js';
import { newServeId } from '../../src/serving/serveId.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { canMount, fillDisk, mountTmpfs } from '../helpers/tmpfs.js';
import { startAnotherInstance, startTestApp, startTestAppOn, testConfig, type TestContext } from '../helpers/testApp.js';
import {
  eventsOf,
  fromAddress,
  readerAddress,
  rollupOf,
  serveClaims,
  signedToken,
  trackedLineItem,
  type TrackedLineItem,
  waitForEvents,
  waitPastClickDelay,
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

beforeAll(async () => {
  a = await startTestApp(env);
  b = await startAnotherInstance(a, env);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

/** Each serve's reader: one address per token, so that clicks of different tests never add up to one visitor's pace. */
const readers = new Map<string, string>();
const readerOf = (token: string) => readers.get(token) ?? readers.set(token, readerAddress()).get(token)!;
const pixel = (ctx: TestContext, token: string) => fromAddress(ctx, `${IMPRESSION_PATH}${token}`, readerOf(token));
const click = (ctx: TestContext, token: string) => fromAddress(ctx, `${CLICK_PATH}${token}`, readerOf(token));

function impressionsOf(events: Array<{ type: string; ivt: string }>) {
  return events.filter((event) => event.type === 'impression').map((event) => event.ivt);
}
function clicksOf(events: Array<{ type: string; ivt: string }>) {
  return events.filter((event) => event.type === 'click').map((event) => event.ivt);
}

/** A CPC (or CPA) serve with its impression answered by `at` and stored; resolves once a click on it would not be too fast. */
async function seenServe(item: TrackedLineItem, at: TestContext, model: 'CPC' | 'CPA' = 'CPC', priceNanos = CLICK_PRICE): Promise<string> {
  const token = signedToken(at, serveClaims(item, model, priceNanos));
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

describe('conversions with the same conversion_id at two instances', () => {
  const CPA_PRICE = 7_000_000_000;
  const postConversion = (ctx: TestContext, key: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', headers: { 'x-api-key': key }, payload });

  it('stores and bills one, answers the others 200 with it, and still does after a restart', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpa', bid_value: 7 });
    const token = await seenServe(item, a, 'CPA', CPA_PRICE);
    const redirect = await click(a, token);
    const clickId = new URL(redirect.headers.location as string).searchParams.get('adsvc_click_id')!;
    await waitForEvents(a, item.lineItemId, 2);

    // The same order reported at the same moment to both instances, twice each (a sender's retries).
    const conversion = { click_id: clickId, value: 10, conversion_id: 'order-A' };
    const answers = await Promise.all([a, b, a, b].map((ctx) => postConversion(ctx, item.key, conversion)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 200, 200, 201]);
    const first = answers.find((answer) => answer.statusCode === 201)!.json().data;
    for (const answer of answers) expect(answer.json().data).toEqual(first);

    // Closing flushes b's spool; b restarted on it still knows the conversion.
    await b.close();
    b = await startTestAppOn(a.stores, b.dataDir, env);
    const retry = await postConversion(b, item.key, conversion);
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data).toEqual(first);
    await a.close();
    a = await startTestApp(env);

    const conversions = (await eventsOf(a, item.lineItemId)).filter((event) => event.type === 'conversion');
    expect(conversions.map((event) => event.event_id)).toEqual([first.id]);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ clicks: 1, conversions: 1, spend_nanos: CPA_PRICE, revenue_nanos: 10_000_000_000 });
  });
});

describe('simultaneous clicks on a serve the instance does not remember', () => {
  const CLICKS = 30;

  it('bills one of many parallel clicks at an instance that never saw the serve; the rest are duplicates', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    // Every click waits for the same lookup of the serve, and only the first to be decided counts.
    const answers = await Promise.all(Array.from({ length: CLICKS }, () => click(b, token)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(CLICKS).fill(302));
    const clicks = clicksOf(await waitForEvents(a, item.lineItemId, 1 + CLICKS));
    expect(clicks.filter((ivt) => ivt === '')).toHaveLength(1);
    expect(clicks.filter((ivt) => ivt === 'duplicate')).toHaveLength(CLICKS - 1);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ clicks: 1, spend_nanos: CLICK_PRICE });
  });

  it('decides them in order in the process: one is spooled billable, the others as duplicate before any insert', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    // An instance that writes only when closed: its spool holds its own verdicts, which pacing counts at once.
    const c = await startAnotherInstance(a, { ...env, EVENT_FLUSH_INTERVAL_MS: '600000' });
    try {
      await Promise.all(Array.from({ length: CLICKS }, () => click(c, token)));
      const spooled = readdirSync(path.join(c.dataDir, 'spool'))
        .filter((file) => file.endsWith('.jsonl'))
        .flatMap((file) => readFileSync(path.join(c.dataDir, 'spool', file), 'utf8').split('\n'))
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown[]);
      const clicks = spooled.filter((row) => row[SPOOL_COLUMNS.indexOf('type')] === 'click').map((row) => row[SPOOL_COLUMNS.indexOf('ivt')]);
      expect(clicks.sort()).toEqual(['', ...Array(CLICKS - 1).fill('duplicate')]);
    } finally {
      await c.close();
    }
  });

  it('bills one of parallel clicks reaching both instances and a restarted one', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    await a.close();
    a = await startTestApp(env);
    const answers = await Promise.all(Array.from({ length: CLICKS }, (_, index) => click(index % 2 === 0 ? a : b, token)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(CLICKS).fill(302));
    const clicks = clicksOf(await waitForEvents(a, item.lineItemId, 1 + CLICKS));
    expect(clicks.filter((ivt) => ivt === '')).toHaveLength(1);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ clicks: 1, spend_nanos: CLICK_PRICE });
  });
});

describe('a restart in between', () => {
  it('does not bill the duplicate impression or click that reaches the restarted app', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    expect((await click(a, token)).statusCode).toBe(302);
    await a.close();
    a = await startTestApp(env);
    // A cached page reopened after a deploy: the ad shows again and is clicked again, a while later.
    expect((await pixel(a, token)).statusCode).toBe(200);
    await waitPastClickDelay(Date.now());
    expect((await click(a, token)).statusCode).toBe(302);
    const events = await waitForEvents(a, item.lineItemId, 4);
    expect(impressionsOf(events)).toEqual(['', 'duplicate']);
    expect(clicksOf(events)).toEqual(['', 'duplicate']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });
});

describe('a repeated pixel at a restarted app, then a click', () => {
  it('times the click from the serve\'s first impression in ClickHouse, not the repeated one: it is billed, not click_too_fast', async () => {
    const item = await trackedLineItem(a, { bid_type: 'cpc', bid_value: 0.4 });
    const token = await seenServe(item, a);
    await a.close();
    a = await startTestApp(env);
    // The restarted app takes the repeated pixel for the serve's first; the click follows it at once.
    expect((await pixel(a, token)).statusCode).toBe(200);
    expect((await click(a, token)).statusCode).toBe(302);
    const events = await waitForEvents(a, item.lineItemId, 3);
    expect(impressionsOf(events)).toEqual(['', 'duplicate']);
    expect(clicksOf(events)).toEqual(['']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, clicks: 1, spend_nanos: CLICK_PRICE });
  });
});

describe('the check inside a segment\'s insert', () => {
  type How = 'accepted' | 'left in the spool' | 'left in the spool with a torn last line';

  /**
   * Writes the events through a pipeline of its own: accepted in this run, or left in its spool by
   * an earlier one; a torn last line (a power loss) makes the segment go as a body the engine reads
   * with input() instead of its file() reader (the way every segment goes to a server).
   */
  async function writeThroughPipeline(events: TrackedEvent[], how: How): Promise<void> {
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'billed-once-'));
    if (how !== 'accepted') {
      const torn = how === 'left in the spool with a torn last line' ? '["torn' : '';
      mkdirSync(path.join(dataDir, 'spool'));
      writeFileSync(path.join(dataDir, 'spool', `${Date.now().toString().padStart(15, '0')}-0123456789ab.jsonl`), events.map(spoolLine).join('') + torn);
    }
    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir), ch: a.stores.ch, log: a.app.log });
    if (how === 'accepted') pipeline.accept(events);
    await pipeline.close();
  }

  async function storedOf(serveId: string): Promise<Array<{ event_id: string; type: string; ivt: string; cost_nanos: number }>> {
    const result = await a.stores.ch.client.query({
      query: `SELECT toString(event_id) AS event_id, type, ivt, toInt64(cost_nanos) AS cost_nanos FROM events_v1 WHERE serve_id = {serve_id:String}`,
      query_params: { serve_id: serveId },
      format: 'JSONEachRow',
    });
    return result.json();
  }

  for (const how of ['accepted', 'left in the spool', 'left in the spool with a torn last line'] as const) {
    it(`bills one of two valid events of a serve in the same segment, the later one a duplicate (events ${how})`, async () => {
      // What a process whose ledger forgot the serve between them would spool.
      const first = sampleEvent({ serve_id: newServeId(Date.now()), event_time: Date.now() - 1000 });
      const second = sampleEvent({ serve_id: first.serve_id, campaign_id: first.campaign_id });
      const clicks = [first, second].map((event) => ({ ...event, event_id: randomUUID(), type: 'click' as const, source: 'click', cost_nanos: 0 }));
      await writeThroughPipeline([second, first, ...clicks], how);
      const stored = await storedOf(first.serve_id);
      const ivtOf = (event: TrackedEvent) => stored.filter((row) => row.event_id === event.event_id).map((row) => [row.ivt, Number(row.cost_nanos)]);
      expect(ivtOf(first)).toEqual([['', 2_500_000]]);
      expect(ivtOf(second)).toEqual([['duplicate', 0]]);
      expect(stored.filter((row) => row.type === 'click').map((row) => row.ivt).sort()).toEqual(['', 'duplicate']);
    });

    it(`calls a serve billed only for another event than the one being written (events ${how})`, async () => {
      // Quotes and backslashes in a serve id stay inside the check's string literals.
      const written = sampleEvent({ serve_id: `${randomUUID()}'\\` });
      await writeThroughPipeline([written], 'accepted');
      // The same event again (a segment sent again keeps its events), another impression of the serve, its click, and an invalid one.
      const elsewhere = sampleEvent({ serve_id: written.serve_id, campaign_id: written.campaign_id });
      const click = sampleEvent({ serve_id: written.serve_id, campaign_id: written.campaign_id, type: 'click', source: 'click', cost_nanos: 0 });
      const bot = sampleEvent({ serve_id: written.serve_id, campaign_id: written.campaign_id, ivt: 'bot', cost_nanos: 0 });
      await writeThroughPipeline([written, elsewhere, click, bot], how);
      const stored = await storedOf(written.serve_id);
      const ivtOf = (event: TrackedEvent) => stored.filter((row) => row.event_id === event.event_id).map((row) => [row.ivt, Number(row.cost_nanos)]);
      expect(ivtOf(written)).toEqual([['', 2_500_000], ['', 2_500_000]]);
      expect(ivtOf(elsewhere)).toEqual([['duplicate', 0]]);
      expect(ivtOf(click)).toEqual([['', 0]]);
      expect(ivtOf(bot)).toEqual([['bot', 0]]);
    });
  }
});

describe.skipIf(!canMount)('a spool write that fails (a full disk, real tmpfs)', () => {
  it('takes back the impression it counted: the serve\'s next impression is billed, not called a duplicate', async () => {
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'full-spool-'));
    const unmount = mountTmpfs(path.join(dataDir, 'spool'), 64 * 1024);
    let full: TestContext | undefined;
    try {
      full = await startTestAppOn(a.stores, dataDir, env);
      const item = await trackedLineItem(a);
      const freeSpace = fillDisk(path.join(dataDir, 'spool'));
      // The open segment's last page still takes a few lines: the first serve refused is the one.
      let refused: { serveId: string; token: string } | undefined;
      for (let attempt = 0; attempt < 200 && !refused; attempt++) {
        const claims = serveClaims(item, 'tCPM', IMPRESSION_PRICE);
        const token = signedToken(a, claims);
        if ((await pixel(full, token)).statusCode === 503) refused = { serveId: claims.s, token };
      }
      expect(refused).toBeDefined();
      freeSpace();
      expect((await pixel(full, refused!.token)).statusCode).toBe(200);
      await full.close();
      full = undefined;
      const events = await waitForEvents(a, item.lineItemId, 1);
      expect(events.filter((event) => event.serve_id === refused!.serveId).map((event) => event.ivt)).toEqual(['']);
    } finally {
      await full?.close();
      unmount();
    }
  });
});

describe('ClickHouse that cannot answer (its store closed)', () => {
  it('still answers pixels 200 once spooled; the events wait in the spools, and once written the serve is billed once', async () => {
    const item = await trackedLineItem(a);
    const token = signedToken(a, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
    const dataDirs = [a.dataDir, b.dataDir] as const;
    await a.stores.ch.close();
    // The first impression of the serve (neither instance has seen it) and its duplicate elsewhere.
    expect((await pixel(a, token)).statusCode).toBe(200);
    expect((await pixel(b, token)).statusCode).toBe(200);
    // Both events are only in the instances' spools; each restarts on its own spool, ClickHouse back.
    await a.close();
    await b.close();
    const { CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, CLICKHOUSE_DATABASE } = a.config;
    const ch = await openClickHouse({ url: CLICKHOUSE_URL, user: CLICKHOUSE_USER, password: CLICKHOUSE_PASSWORD, database: CLICKHOUSE_DATABASE, dataDir: a.dataDir });
    const stores: Stores = { ...a.stores, ch };
    a = await startTestAppOn(stores, dataDirs[0], env);
    expect(impressionsOf(await waitForEvents(a, item.lineItemId, 1))).toEqual(['']);
    b = await startTestAppOn(stores, dataDirs[1], env);
    // One billed, one duplicate; the two pixels may share a millisecond, so their stored order is not theirs.
    expect(impressionsOf(await waitForEvents(a, item.lineItemId, 2)).sort()).toEqual(['', 'duplicate']);
    expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
  });
});
