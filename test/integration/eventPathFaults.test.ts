import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { SPOOL_COLUMNS, spoolLine } from '../../src/tracking/eventSpool.js';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { canMount, fillDisk, mountTmpfs, notRootMessage } from '../helpers/tmpfs.js';
import { mountExt4 } from '../helpers/ext4.js';
import { startTestApp, startTestAppOn, testConfig, testStores, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { eventuallyServed, serve, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { ADDRESSES, BROWSER_UA, eventsOf, fromAddress, readerAddress, serveClaims, signedToken, trackedLineItem, waitPastClickDelay } from '../helpers/trackingFixtures.js';

const NAVIGATION = { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };

/**
 * The event path under real faults: a full disk (a real tmpfs under the spool), lines ClickHouse
 * cannot parse, and ClickHouse refusing every insert for a while.
 */
const silent = pino({ level: 'silent' });

async function countByCampaign(ch: TestContext['stores']['ch'], campaignId: string) {
  const result = await ch.client.query({
    query: 'SELECT toUInt64(count()) AS rows, toUInt64(uniqExact(event_id)) AS distinct_ids FROM events_v1 WHERE campaign_id = {id:UUID}',
    query_params: { id: campaignId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: number | string; distinct_ids: number | string }>();
  return { rows: Number(row!.rows), distinct: Number(row!.distinct_ids) };
}

function spoolFiles(spoolDir: string): string[] {
  return readdirSync(spoolDir).filter((name) => name.endsWith('.jsonl'));
}

async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!canMount)('a full disk under the spool (real tmpfs)', () => {
  let ctx: TestContext;
  let spoolDir = '';
  let unmount: () => void = () => undefined;

  beforeAll(async () => {
    const { dataDir } = await testStores();
    spoolDir = path.join(dataDir, 'spool');
    unmount = mountTmpfs(spoolDir, 256 * 1024);
    // Nothing is flushed (and no segment deleted, which would free space) until the test says so.
    ctx = await startTestApp({ EVENT_FLUSH_INTERVAL_MS: '600000' });
  });

  afterAll(async () => {
    await ctx?.close();
    unmount();
  });

  it('answers a pixel 2xx only for a whole spooled line, 503 with Retry-After otherwise, and keeps every acknowledged event once', async () => {
    const item = await trackedLineItem(ctx);
    const pixel = () => fromAddress(ctx, `${IMPRESSION_PATH}${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, ADDRESSES.comcastResidential);
    let acknowledged = 0;
    expect((await pixel()).statusCode).toBe(200);
    acknowledged += 1;

    const freeSpace = fillDisk(spoolDir);
    // The open segment's last page still takes a few lines; one of them is cut short by the full disk.
    let refused;
    for (let attempt = 0; attempt < 200 && !refused; attempt++) {
      const response = await pixel();
      if (response.statusCode === 200) acknowledged += 1;
      else refused = response;
    }
    expect(refused?.statusCode).toBe(503);
    expect(refused?.json().error.code).toBe('unavailable');
    expect(refused?.headers['retry-after']).toBe('5');
    expect((await pixel()).statusCode).toBe(503);

    // Nothing half-written stays behind: the spool holds exactly the acknowledged lines, each whole.
    const spooled = spoolFiles(spoolDir).map((name) => readFileSync(path.join(spoolDir, name), 'utf8')).join('');
    expect(spooled.endsWith('\n')).toBe(true);
    expect(spooled.split('\n').length - 1).toBe(acknowledged);

    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json().checks).toMatchObject({ spool: 'failing', postgres: 'ok', clickhouse: 'ok' });

    freeSpace();
    for (let more = 0; more < 5; more++) {
      expect((await pixel()).statusCode).toBe(200);
      acknowledged += 1;
    }
    await ctx.close();
    const stored = await eventsOf(ctx, item.lineItemId);
    expect(stored.length).toBe(acknowledged);
    expect(new Set(stored.map((event) => event.event_id)).size).toBe(acknowledged);
    expect(spoolFiles(spoolDir)).toEqual([]);
  });

  it('never seals or sends an empty segment when the first write of one fails', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(path.dirname(spoolDir), 'empty-segment-'));
    const release = mountTmpfs(path.join(dataDir, 'spool'), 64 * 1024);
    try {
      const freeSpace = fillDisk(path.join(dataDir, 'spool'));
      const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
      expect(() => pipeline.accept([sampleEvent()])).toThrow('events cannot be stored right now');
      expect(pipeline.stats().refused).toBe(1);
      await pipeline.flush();
      expect(spoolFiles(path.join(dataDir, 'spool'))).toEqual([]);
      freeSpace();
      const event = sampleEvent();
      pipeline.accept([event]);
      await pipeline.close();
      expect(await countByCampaign(stores.ch, event.campaign_id)).toEqual({ rows: 1, distinct: 1 });
    } finally {
      release();
    }
  });

  it('logs a spool that cannot be written once, not once per refused event, and when it is written again', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(path.dirname(spoolDir), 'log-once-'));
    const release = mountTmpfs(path.join(dataDir, 'spool'), 64 * 1024);
    const lines: Array<{ level: number; msg: string; refused?: number }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    try {
      const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log });
      const freeSpace = fillDisk(path.join(dataDir, 'spool'));
      for (let refused = 0; refused < 20; refused++) expect(() => pipeline.accept([sampleEvent()])).toThrow('events cannot be stored right now');
      freeSpace();
      pipeline.accept([sampleEvent()]);
      pipeline.accept([sampleEvent()]);
      await pipeline.close();
      const spoolLines = lines.filter((line) => /event spool/.test(line.msg)).map((line) => [line.level, line.msg, line.refused]);
      // The recovery line counts the events refused since the last line (rev40 R9): an outage under a minute logs no other count.
      expect(spoolLines).toEqual([
        [50, 'cannot write the event spool; refusing events until it can', undefined],
        [30, 'the event spool is written again; accepting events', 20],
      ]);
    } finally {
      release();
    }
  });

  it('logs a spool on a disk turned read-only once, not once per refused event, though each failed open names another segment', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(path.dirname(spoolDir), 'log-once-read-only-'));
    const disk = mountExt4(path.join(dataDir, 'spool'), 16 * 1024 * 1024);
    const lines: Array<{ level: number; msg: string }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    try {
      const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log });
      pipeline.accept([sampleEvent()]);
      disk.fail();
      for (let refused = 0; refused < 20; refused++) expect(() => pipeline.accept([sampleEvent()])).toThrow('events cannot be stored right now');
      expect(pipeline.stats().refused).toBe(20);
      const spoolLines = lines.filter((line) => /event spool/.test(line.msg)).map((line) => [line.level, line.msg]);
      expect(spoolLines).toEqual([[50, 'cannot write the event spool; refusing events until it can']]);
      // Its close cannot write to the read-only disk: bounded, not awaited for good.
      await Promise.race([pipeline.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    } finally {
      disk.unmount();
    }
  });

  it('counts a click the spool could not take (503) neither for click velocity nor as unbilled: its retry is judged and counted as the one click it is', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(path.dirname(spoolDir), 'count-when-stored-'));
    const release = mountTmpfs(path.join(dataDir, 'spool'), 256 * 1024);
    const app = await startTestAppOn(stores, dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' });
    try {
      // CPC 0.60 USD, daily budget 1 USD: the ceiling (twice the daily budget) bills 3 clicks, the 4th is over_daily_budget.
      const created = await createAdvertiser(app);
      const publisher = await createPublisher(app);
      const placement = (await createPlacement(app, publisher.id)).id;
      const word = uniqueWord();
      const { lineItemId } = await servableLineItem(app, created, {
        bids: { bid_type: 'cpc', bid_value: 0.6 },
        budget: { daily: 1, currency: 'USD', pacing: 'asap' },
        targeting: { keywords: { include: [word] } },
      });
      const body = { placement_id: placement, context: { query: word, response: '' } };
      await eventuallyServed(app, publisher.token, body, lineItemId);
      const served: LightMyRequestResponse[] = [];
      for (let n = 0; n < 4; n++) served.push(await serve(app, publisher.token, body));
      const reader = readerAddress();
      const request = (url: string, remoteAddress: string, headers: Record<string, string> = {}) =>
        app.app.inject({ method: 'GET', url: new URL(url).pathname, remoteAddress, headers: { 'user-agent': BROWSER_UA, ...headers } });
      for (const response of served) expect((await request(response.json().ad.tracking.impression_url, reader)).statusCode).toBe(200);
      await waitPastClickDelay(Date.now());
      const click = (n: number, remoteAddress: string) => request(served[n]!.json().ad.tracking.click_url, remoteAddress, NAVIGATION);
      for (let n = 0; n < 3; n++) expect((await click(n, reader)).statusCode).toBe(302);

      // The spool is full: pixels of another line item until one is refused, then every write is.
      const other = await trackedLineItem(app);
      const freeSpace = fillDisk(path.join(dataDir, 'spool'));
      for (let attempt = 0; attempt < 200; attempt++) {
        if ((await fromAddress(app, `${IMPRESSION_PATH}${signedToken(app, serveClaims(other, 'tCPM', 2_500_000))}`, ADDRESSES.comcastResidential)).statusCode === 503) break;
      }
      // Another reader's click, over the ceiling, tried five times: were the tries counted, its
      // retry would be the reader's sixth click in 10 s (click_velocity), and three tries unbilled.
      const another = readerAddress();
      for (let attempt = 0; attempt < 5; attempt++) {
        // A person's navigation: the same 503 and Retry-After, as a page with a link to try again.
        const refused = await click(3, another);
        expect([refused.statusCode, refused.headers['retry-after'], refused.headers['content-type']]).toEqual([503, '5', 'text/html; charset=utf-8']);
        expect(refused.body).toContain('try again</a> in a few seconds');
      }
      // A client that is not navigating (a script's fetch, an API client) keeps the envelope.
      const scripted = await request(served[3]!.json().ad.tracking.click_url, another, { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' });
      expect([scripted.statusCode, scripted.headers['retry-after'], scripted.json().error.code]).toEqual([503, '5', 'unavailable']);
      freeSpace();
      expect((await click(3, another)).statusCode).toBe(302);

      const metrics = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toContain('adsvc_events_unbilled_total{reason="over_daily_budget"} 1\n');
      await app.close();
      const clicks = (await eventsOf(app, lineItemId)).filter((event) => event.type === 'click');
      expect(clicks.map((event) => [event.ip, event.ivt, event.cost_nanos])).toEqual([
        [reader, '', 600_000_000],
        [reader, '', 600_000_000],
        [reader, '', 600_000_000],
        [another, '', 0],
      ]);
    } finally {
      await app.close();
      release();
    }
  });
});

if (!canMount) console.warn(notRootMessage);

describe('spooled lines ClickHouse cannot parse', () => {
  it('quarantines the torn line, writes every line around it once, and does not hold back later segments', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'quarantine-'));
    const spoolDir = path.join(dataDir, 'spool');
    mkdirSync(spoolDir);
    const campaignId = randomUUID();
    const valid = () => spoolLine(sampleEvent({ campaign_id: campaignId }));
    const torn = valid().slice(0, 60);
    // A line cut short by a crash in an old release, followed by more events in the same segment.
    writeFileSync(path.join(spoolDir, '000000000000001-aaaaaaaaaaaa.jsonl'), [valid(), valid(), `${torn}\n`, valid(), valid(), valid()].join(''));
    writeFileSync(path.join(spoolDir, '000000000000002-bbbbbbbbbbbb.jsonl'), [valid(), valid()].join(''));

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();

    expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 7, distinct: 7 });
    expect(pipeline.stats()).toMatchObject({ written: 7, quarantined: 1, backlogRows: 0 });
    expect(spoolFiles(spoolDir)).toEqual([]);
    expect(readFileSync(path.join(dataDir, 'quarantine', '000000000000001-aaaaaaaaaaaa.jsonl'), 'utf8')).toBe(`${torn}\n`);
  });

  it('sets aside lines that are no rows in one step: one insert for the rest, which a replay repeats under the same token (try41 F5, F7)', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'poisoned-'));
    const spoolDir = path.join(dataDir, 'spool');
    mkdirSync(spoolDir);
    const campaignId = randomUUID();
    // Forged links' rows, before tokens refused them: a placement id with a lone surrogate, which
    // JSON spells as an escape ClickHouse will not read, between real events.
    const good = Array.from({ length: 40 }, () => spoolLine(sampleEvent({ campaign_id: campaignId })));
    const bad = Array.from({ length: 40 }, () => spoolLine(sampleEvent({ campaign_id: campaignId, placement_id: 'fraud\ud800below' })));
    // A name no other test here uses: the name is the insert's token, and ClickHouse drops a body it
    // has seen a token for.
    const segment = '000000000000008-888888888888.jsonl';
    const original = good.map((line, index) => line + bad[index]).join('');
    writeFileSync(path.join(spoolDir, segment), original);
    const inserts = async () => {
      const result = await stores.ch.client.query({ query: "SELECT toUInt64(sum(value)) AS n FROM system.events WHERE event = 'InsertQuery'", format: 'JSONEachRow' });
      return Number((await result.json<{ n: string }>())[0]!.n);
    };
    // ClickHouse remembers few tokens here, as it would after many inserts: a replay whose halves'
    // tokens it forgot writes their rows twice.
    const windows = (size: number) => stores.ch.client.command({ query: `ALTER TABLE events_v1 MODIFY SETTING non_replicated_deduplication_window = ${size}` });
    await windows(5);
    try {
      const before = await inserts();
      let pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
      await pipeline.flush();
      await pipeline.close();
      expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 40, distinct: 40 });
      expect(pipeline.stats()).toMatchObject({ written: 40, quarantined: 40, backlogRows: 0 });
      expect(readFileSync(path.join(dataDir, 'quarantine', segment), 'utf8')).toBe(bad.join(''));
      // The refused segment and its rewrite: not one insert per run of good lines (80 by halving).
      expect((await inserts()) - before).toBeLessThanOrEqual(3);

      // A kill -9 after the write, before the segment was deleted: it is replayed as it was found.
      writeFileSync(path.join(spoolDir, segment), original);
      pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
      await pipeline.flush();
      await pipeline.close();
      expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 40, distinct: 40 });
      expect(readFileSync(path.join(dataDir, 'quarantine', segment), 'utf8')).toBe(bad.join(''));
      expect(spoolFiles(spoolDir)).toEqual([]);
    } finally {
      await windows(10_000);
    }
  });

  it("writes, beside the lines it sets aside, those ClickHouse reads though Node's check did not: more values than SPOOL_COLUMNS (a newer release's), a null (rev41 R10)", async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'lenient-'));
    const spoolDir = path.join(dataDir, 'spool');
    mkdirSync(spoolDir);
    const campaignId = randomUUID();
    const line = (overrides: Partial<TrackedEvent> = {}) => spoolLine(sampleEvent({ campaign_id: campaignId, ...overrides }));
    // Left by a newer release after a rollback: two columns this one does not know, which the
    // insert's input_format_json_compact_allow_variable_number_of_columns ignores.
    const newer = line().replace(/\]\n$/, ',"a later column",7]\n');
    // A null reads as its column's default (input_format_null_as_default): no country.
    const nulled = (() => {
      const row = JSON.parse(line({ country: 'DE' })) as unknown[];
      row[SPOOL_COLUMNS.indexOf('country')] = null;
      return `${JSON.stringify(row)}\n`;
    })();
    // The lines that make ClickHouse refuse the body, so that Node sorts it.
    const surrogate = line({ placement_id: 'fraud\ud800below' });
    const segment = '000000000000009-999999999999.jsonl';
    writeFileSync(path.join(spoolDir, segment), [line(), newer, surrogate, nulled, line()].join(''));

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();

    expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 4, distinct: 4 });
    expect(pipeline.stats()).toMatchObject({ quarantined: 1, backlogRows: 0 });
    expect(readFileSync(path.join(dataDir, 'quarantine', segment), 'utf8')).toBe(surrogate);
    const countries = await stores.ch.client.query({
      query: 'SELECT country FROM events_v1 WHERE campaign_id = {id:UUID} AND event_id = {event:UUID}',
      query_params: { id: campaignId, event: String((JSON.parse(nulled) as unknown[])[0]) },
      format: 'JSONEachRow',
    });
    expect(await countries.json()).toEqual([{ country: '' }]);
    expect(spoolFiles(spoolDir)).toEqual([]);
  });

  it('quarantines a line whose type is no event type, as unparsable, billable segment or not', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'unknown-type-'));
    const spoolDir = path.join(dataDir, 'spool');
    mkdirSync(spoolDir);
    const campaignId = randomUUID();
    const line = (overrides: Partial<TrackedEvent>) => spoolLine(sampleEvent({ campaign_id: campaignId, ...overrides }));
    // A spool file edited by hand: an impression whose type is misspelt, with a cost that would be spent.
    const misspelt = line({ type: 'imprezzion' as TrackedEvent['type'], cost_nanos: 2_500_000, source: 'import' });
    writeFileSync(path.join(spoolDir, '000000000000005-eeeeeeeeeeee.jsonl'), [line({ source: 'import' }), misspelt, line({ source: 'import' })].join(''));
    const billable = line({ type: 'click', source: 'click', serve_id: `unknown-type-${randomUUID()}`, ivt: '' });
    const misspeltBillable = line({ type: 'klick' as TrackedEvent['type'], source: 'click', ivt: '' });
    writeFileSync(path.join(spoolDir, '000000000000006-ffffffffffff.jsonl'), [billable, misspeltBillable].join(''));

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '600000' }), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();

    expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 3, distinct: 3 });
    expect(pipeline.stats()).toMatchObject({ written: 3, quarantined: 2, backlogRows: 0 });
    expect(readFileSync(path.join(dataDir, 'quarantine', '000000000000005-eeeeeeeeeeee.jsonl'), 'utf8')).toBe(misspelt);
    expect(readFileSync(path.join(dataDir, 'quarantine', '000000000000006-ffffffffffff.jsonl'), 'utf8')).toBe(misspeltBillable);
  });

  it('leaves out a last line whose newline a power loss cut off (its request was never answered)', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'torn-tail-'));
    mkdirSync(path.join(dataDir, 'spool'));
    const campaignId = randomUUID();
    const valid = () => spoolLine(sampleEvent({ campaign_id: campaignId }));
    // Every byte of the third line but its newline: the engine's own reader would take it as a row.
    writeFileSync(path.join(dataDir, 'spool', '000000000000004-dddddddddddd.jsonl'), valid() + valid() + valid().slice(0, -1));

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();
    expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 2, distinct: 2 });
    expect(pipeline.stats()).toMatchObject({ written: 2, quarantined: 0, backlogRows: 0 });
  });

  it('inserts a segment spooled before clickhouse/0003, whose lines have 19 columns', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'old-lines-'));
    mkdirSync(path.join(dataDir, 'spool'));
    const campaignId = randomUUID();
    const oldLine = () => JSON.stringify(JSON.parse(spoolLine(sampleEvent({ campaign_id: campaignId }))).slice(0, 19)) + '\n';
    expect(SPOOL_COLUMNS.length).toBeGreaterThan(19);
    writeFileSync(path.join(dataDir, 'spool', '000000000000003-cccccccccccc.jsonl'), oldLine() + oldLine());

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();
    expect(await countByCampaign(stores.ch, campaignId)).toEqual({ rows: 2, distinct: 2 });
    expect(pipeline.stats().quarantined).toBe(0);
  });
  it('inserts a segment spooled before clickhouse/0012, whose lines have no price, billable clicks included, at price 0', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'priceless-lines-'));
    mkdirSync(path.join(dataDir, 'spool'));
    const campaignId = randomUUID();
    const before = SPOOL_COLUMNS.indexOf('price_nanos');
    const oldLine = (overrides: Partial<TrackedEvent>) =>
      JSON.stringify((JSON.parse(spoolLine(sampleEvent({ campaign_id: campaignId, ...overrides }))) as unknown[]).slice(0, before)) + '\n';
    const click = { type: 'click', source: 'click', price_model: 'CPA', cost_nanos: 0, serve_id: `priceless-${randomUUID()}` } as const;
    writeFileSync(path.join(dataDir, 'spool', '000000000000007-777777777777.jsonl'), oldLine({}) + oldLine(click));

    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir), ch: stores.ch, log: silent });
    await pipeline.flush();
    await pipeline.close();
    const result = await stores.ch.client.query({
      query: 'SELECT type, ivt, toFloat64(cost_nanos) AS cost, toFloat64(price_nanos) AS price FROM events_v1 WHERE campaign_id = {id:UUID} ORDER BY type',
      query_params: { id: campaignId },
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      { type: 'click', ivt: '', cost: 0, price: 0 },
      { type: 'impression', ivt: '', cost: 2_500_000, price: 0 },
    ]);
    expect(pipeline.stats()).toMatchObject({ written: 2, quarantined: 0 });
  });
});

describe('ClickHouse refusing every insert for a while', () => {
  it('resumes writing within 5 s of the fault clearing, without a restart', async () => {
    const { stores } = await testStores();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'outage-'));
    const pipeline = await createClickHouseEventPipeline({ config: testConfig(dataDir, { EVENT_FLUSH_INTERVAL_MS: '10' }), ch: stores.ch, log: silent });
    const event = sampleEvent();
    await stores.ch.client.command({ query: 'RENAME TABLE events_v1 TO events_v1_away' });
    try {
      pipeline.accept([event]);
      // Long enough for an uncapped doubling backoff (10 ms, 20 ms, ...) to pass 5 s between tries.
      await waitUntil(() => pipeline.stats().writeFailures >= 10, 30_000, 'ten failed write rounds');
    } finally {
      await stores.ch.client.command({ query: 'RENAME TABLE events_v1_away TO events_v1' });
    }
    const clearedAt = Date.now();
    await waitUntil(() => pipeline.pending() === 0, 10_000, 'the backlog to drain');
    expect(Date.now() - clearedAt).toBeLessThan(5000);
    await pipeline.close();
    expect(await countByCampaign(stores.ch, event.campaign_id)).toEqual({ rows: 1, distinct: 1 });
  });
});
