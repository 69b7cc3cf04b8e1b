import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { createClient } from '@clickhouse/client';
import { mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { withUnavailableQueries } from '../../src/store/clickhouseUnavailable.js';
import { createClickHouseEventPipeline, type EventPipelineOptions } from '../../src/tracking/clickhouseEventPipeline.js';
import { ApiError } from '../../src/http/errors.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { freePort } from '../helpers/freePort.js';
import { eventually } from '../helpers/eventually.js';
import { refusingView } from '../helpers/refusingView.js';
import { openMigratedClickHouse } from '../helpers/migratedClickHouse.js';
import { spoolLine } from '../../src/tracking/eventSpool.js';
import { packageRoot } from '../../src/packageRoot.js';

const silent = pino({ level: 'silent' });
// chdb allows one data directory per process, and the crash test's child must own its directory
// while it runs, so this file opens ClickHouse only after the child is dead.
const dataDir = mkdtempSync(path.join(inject('testRoot'), 'pipeline-'));
let ch: ClickHouse | undefined;
// Opened by the first describe (after its crash test's child is dead), used by every one after it.
afterAll(async () => {
  await ch?.close();
});

/**
 * A pipeline closed when the test ends, whether it passed or failed (closing twice is a no-op): the
 * tests share one DATA_DIR, and a pipeline a failed assertion left open holds its spool's lock, so
 * every later test would fail to open its own instead of testing anything.
 */
async function openPipeline(options: EventPipelineOptions) {
  const pipeline = await createClickHouseEventPipeline(options);
  onTestFinished(() => pipeline.close());
  return pipeline;
}

async function countEvents(campaignId: string) {
  const result = await ch!.client.query({
    query: `SELECT toUInt64(count()) AS rows, toUInt64(uniqExact(event_id)) AS distinct_ids,
              (SELECT toUInt64(sum(impressions)) FROM daily_stats_v1 WHERE campaign_id = {id:UUID}) AS rolled_up,
              (SELECT toUInt64(sum(impressions)) FROM campaign_daily_stats_v1 WHERE campaign_id = {id:UUID}) AS reported
            FROM events_v1 WHERE campaign_id = {id:UUID}`,
    query_params: { id: campaignId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: number | string; distinct_ids: number | string; rolled_up: number | string; reported: number | string }>();
  return {
    rows: Number(row!.rows),
    distinct: Number(row!.distinct_ids),
    rolledUp: Number(row!.rolled_up),
    reported: Number(row!.reported),
  };
}

describe('an accepted event survives kill -9 of the process (the spool is replayed at start)', () => {
  let acknowledged = 0;
  let campaignId = '';

  beforeAll(async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/pipelineCrashChild.ts'), dataDir], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', () => resolve());
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [, id, count] = line.split(' ');
          campaignId = id!;
          acknowledged = Number(count);
        }
        // Mid-load: some batches are in ClickHouse, some in flight, some only in the spool.
        if (acknowledged >= 5000) child.kill('SIGKILL');
      });
    });
    ch = await openMigratedClickHouse(dataDir);
  });

  it('finds every acknowledged event in ClickHouse exactly once after a restart', async () => {
    expect(acknowledged).toBeGreaterThanOrEqual(5000);
    expect(readdirSync(path.join(dataDir, 'spool')).length).toBeGreaterThan(0);
    const config = loadConfig({ DATA_DIR: dataDir });
    const restarted = await openPipeline({ config, ch: ch!, log: silent });
    await restarted.flush();
    await restarted.close();
    const counted = await countEvents(campaignId);
    expect(counted.rows).toBeGreaterThanOrEqual(acknowledged);
    expect(counted.distinct).toBe(counted.rows);
    expect(counted.rolledUp).toBe(counted.rows);
    expect(counted.reported).toBe(counted.rows);
    expect(readdirSync(path.join(dataDir, 'spool'))).toEqual([]);
  });

  it('counts a conversion a crash left unsent in the backlog while ClickHouse is down, and writes it once when it is back', async () => {
    // A conversion written at once (writeNow) to a ClickHouse server that never answers, and the
    // process killed while the insert waits: the spool keeps it as an insert in flight.
    const crashDir = mkdtempSync(path.join(inject('testRoot'), 'in-flight-'));
    // It reads and drops what it is sent, never answering: a connection whose request sat unread
    // never saw the killed writer's end, and close() waited for it for good (CI's 60 s timeout, when
    // the writer sent its request before the kill).
    const unanswering = createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => unanswering.listen(0, '127.0.0.1', resolve));
    const sent = new Promise<void>((resolve) => unanswering.once('connection', () => resolve()));
    const port = String((unanswering.address() as AddressInfo).port);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/conversionWriteChild.ts'), crashDir, 'unanswered', port], {
      cwd: packageRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await sent;
    child.kill('SIGKILL');
    await exited;
    await new Promise((resolve) => unanswering.close(resolve));
    const spoolDir = path.join(crashDir, 'spool');
    expect(readdirSync(spoolDir).filter((name) => name.endsWith('.in-flight'))).toHaveLength(1);

    // The restart's first send is refused (nothing listens on the port any more); then ClickHouse is back.
    const refusing = withUnavailableQueries(createClient({ url: `http://127.0.0.1:${port}`, request_timeout: 5_000 }));
    let back = false;
    const switching: ClickHouse = { kind: 'server', get client() { return back ? ch!.client : refusing; }, close: async () => undefined };
    const config = loadConfig({ DATA_DIR: crashDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
    const restarted = await openPipeline({ config, ch: switching, log: silent });
    const recovered: Array<{ type: string; cost: number }> = [];
    restarted.forEachRecovered((event) => recovered.push({ type: event.type, cost: event.cost_nanos }));
    expect(recovered).toEqual([{ type: 'conversion', cost: 828_000_000 }]);
    expect(restarted.pending()).toBe(1);
    const stats = restarted.stats();
    expect(stats.backlogRows).toBe(1);
    expect(stats.oldestPendingAt).toBeLessThanOrEqual(Date.now());
    await expect(restarted.flush()).rejects.toThrow();
    expect(restarted.pending()).toBe(1);

    back = true;
    await restarted.flush();
    expect(restarted.pending()).toBe(0);
    expect(restarted.stats()).toMatchObject({ backlogRows: 0, oldestPendingAt: undefined, written: 1 });
    await restarted.flush();
    await restarted.close();
    expect(readdirSync(spoolDir)).toEqual([]);
    const [stored] = await (
      await ch!.client.query({
        query: `SELECT toUInt64(count()) AS rows, toInt64(sum(cost_nanos)) AS billed,
                  (SELECT toInt64(sum(spend_nanos)) FROM daily_stats_v1 WHERE line_item_id = {id:UUID}) AS spent
                FROM events_v1 WHERE type = 'conversion' AND line_item_id = {id:UUID}`,
        query_params: { id: '0b6f3c1e-6a59-4f0e-9d0a-2f1f0c1d2e3f' },
        format: 'JSONEachRow',
      })
    ).json<{ rows: number; billed: number; spent: number }>();
    expect(stored).toEqual({ rows: 1, billed: 828_000_000, spent: 828_000_000 });
  });

  it('writes a batch once even when it is sent again with the same token', async () => {
    // A crash after ClickHouse acknowledged a segment but before the segment was deleted: the next
    // start sends the same segment again, with the same name as its deduplication token.
    const spoolDir = path.join(dataDir, 'spool');
    const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
    const pipeline = await openPipeline({ config, ch: ch!, log: silent });
    const id = randomUUID();
    pipeline.accept([sampleEvent({ campaign_id: id }), sampleEvent({ campaign_id: id })]);
    const [segment] = readdirSync(spoolDir);
    const lines = readFileSync(path.join(spoolDir, segment!), 'utf8');
    await pipeline.flush();
    await pipeline.close();
    expect((await countEvents(id)).rows).toBe(2);

    writeFileSync(path.join(spoolDir, segment!), lines);
    const restarted = await openPipeline({ config, ch: ch!, log: silent });
    expect(restarted.pending()).toBe(2);
    await restarted.flush();
    await restarted.close();
    expect(readdirSync(spoolDir)).toEqual([]);
    expect(await countEvents(id)).toEqual({ rows: 2, distinct: 2, rolledUp: 2, reported: 2 });
  });

  it('refuses events with 503 unavailable when the buffer is full, and keeps what it accepted', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, EVENT_BUFFER_MAX_ROWS: '3', EVENT_FLUSH_INTERVAL_MS: '60000' });
    const pipeline = await openPipeline({ config, ch: ch!, log: silent });
    const id = randomUUID();
    pipeline.accept([sampleEvent({ campaign_id: id }), sampleEvent({ campaign_id: id }), sampleEvent({ campaign_id: id })]);
    let refused: unknown;
    try {
      pipeline.accept([sampleEvent({ campaign_id: id })]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(503);
    expect(pipeline.pending()).toBe(3);
    await pipeline.close();
    expect((await countEvents(id)).rows).toBe(3);
  });

  it('writes the events accepted in one turn together, and settles each only once its line is in the spool', async () => {
    const spoolDir = path.join(dataDir, 'spool');
    const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
    const pipeline = await openPipeline({ config, ch: ch!, log: silent });
    const id = randomUUID();
    const spooledLines = () =>
      readdirSync(spoolDir).reduce((sum, name) => sum + readFileSync(path.join(spoolDir, name), 'utf8').split('\n').length - 1, 0);
    const settled: number[] = [];
    const written = [1, 2, 3].map(
      () =>
        new Promise<void>((resolve, reject) =>
          pipeline.acceptInTurn(sampleEvent({ campaign_id: id }), (error) => {
            if (error !== undefined) return reject(error);
            settled.push(spooledLines());
            resolve();
          }),
        ),
    );
    expect(pipeline.pending()).toBe(3);
    expect(spooledLines()).toBe(0);
    await Promise.all(written);
    expect(settled).toEqual([3, 3, 3]);
    await pipeline.close();
    expect((await countEvents(id)).rows).toBe(3);
  });

  it('tells listeners about each accepted event', async () => {
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: dataDir }), ch: ch!, log: silent });
    const seen: string[] = [];
    pipeline.onAccepted((event) => seen.push(event.event_id));
    const event = sampleEvent();
    pipeline.accept([event]);
    expect(seen).toEqual([event.event_id]);
    await pipeline.close();
  });
});

describe('an event the spool took is kept whatever a listener of it does', () => {
  const throwing = () => {
    throw new Error('a counter of accepted events is broken');
  };

  it('answers it as kept when a listener throws, tells the other listeners, writes it once, and logs the throw once and counts each', async () => {
    const logged: Array<{ msg: string }> = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line) as { msg: string }) });
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: ch!, log });
    pipeline.onAccepted(throwing);
    const seen: string[] = [];
    pipeline.onAccepted((event) => seen.push(event.event_id));
    const id = randomUUID();
    const [first, second] = [sampleEvent({ campaign_id: id }), sampleEvent({ campaign_id: id })];

    pipeline.accept([first!]);
    await new Promise<void>((resolve, reject) => pipeline.acceptInTurn(second!, (error) => (error === undefined ? resolve() : reject(error))));

    expect(seen).toEqual([first!.event_id, second!.event_id]);
    expect(pipeline.stats()).toMatchObject({ accepted: 2, refused: 0, listenerFailures: 2 });
    expect(logged.filter((line) => line.msg.includes('listener'))).toHaveLength(1);
    await pipeline.close();
    expect(await countEvents(id)).toEqual({ rows: 2, distinct: 2, rolledUp: 2, reported: 2 });
  });

  it('answers an event written at once as kept when a listener throws, and tells the other listeners it was written', async () => {
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: ch!, log: silent });
    pipeline.onAccepted(throwing);
    const seen: Array<[string, boolean]> = [];
    pipeline.onAccepted((event, written) => seen.push([event.event_id, written]));
    const id = randomUUID();
    const event = sampleEvent({ campaign_id: id });

    await pipeline.writeNow([event], `listener-test:${event.event_id}`);

    expect(seen).toEqual([[event.event_id, true]]);
    expect(pipeline.stats()).toMatchObject({ accepted: 1, written: 1, listenerFailures: 1 });
    await pipeline.close();
    expect((await countEvents(id)).rows).toBe(1);
  });

  it('logs each of two listeners that throw on every event once, not each event twice', async () => {
    const logged: Array<{ msg: string }> = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line) as { msg: string }) });
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: ch!, log });
    pipeline.onAccepted(throwing);
    pipeline.onAccepted(() => {
      throw new Error('another counter is broken too');
    });
    const id = randomUUID();
    for (let i = 0; i < 3; i++) pipeline.accept([sampleEvent({ campaign_id: id })]);

    expect(pipeline.stats()).toMatchObject({ accepted: 3, listenerFailures: 6 });
    expect(logged.filter((line) => line.msg.includes('listener'))).toHaveLength(2);
    await pipeline.close();
  });

  it('still checks its serve when a listener throws: a second impression of a billed serve is stored as duplicate, unbilled', async () => {
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: ch!, log: silent });
    const id = randomUUID();
    const serveId = randomUUID();
    pipeline.accept([sampleEvent({ campaign_id: id, serve_id: serveId })]);
    await pipeline.flush();

    pipeline.onAccepted(throwing);
    pipeline.accept([sampleEvent({ campaign_id: id, serve_id: serveId })]);
    await pipeline.close();

    const stored = await (
      await ch!.client.query({
        query: 'SELECT ivt, toUInt64(cost_nanos) AS cost FROM events_v1 WHERE campaign_id = {id:UUID} ORDER BY event_time, ivt',
        query_params: { id },
        format: 'JSONEachRow',
      })
    ).json<{ ivt: string; cost: string | number }>();
    expect(stored.map((row) => [row.ivt, Number(row.cost)])).toEqual([
      ['', 2_500_000],
      ['duplicate', 0],
    ]);
  });
});

describe('an insert written at once that ClickHouse refused (EventPipeline.completeRefusedWrites)', () => {
  it('is forgotten, nothing stored, when events_v1 does not hold it: its request was answered 503', async () => {
    const port = await freePort();
    const refusing = withUnavailableQueries(createClient({ url: `http://127.0.0.1:${port}`, request_timeout: 5_000 }));
    let back = false;
    const switching: ClickHouse = { kind: 'server', get client() { return back ? ch!.client : refusing; }, close: async () => undefined };
    const refusedDir = mkdtempSync(path.join(inject('testRoot'), 'refused-'));
    const pipeline = await openPipeline({ config: loadConfig({ DATA_DIR: refusedDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: switching, log: silent });
    const event = sampleEvent({ campaign_id: randomUUID(), type: 'conversion' });
    await expect(pipeline.writeNow([event], `conversion:${event.event_id}`)).rejects.toThrow(ApiError);
    const spoolDir = path.join(refusedDir, 'spool');
    expect(readdirSync(spoolDir).filter((name) => name.endsWith('.failed-write'))).toHaveLength(1);

    back = true;
    await pipeline.completeRefusedWrites([event.event_id]);
    expect(readdirSync(spoolDir).filter((name) => name.endsWith('.failed-write'))).toEqual([]);
    expect((await countEvents(event.campaign_id)).rows).toBe(0);
  });

  it('is quarantined once ClickHouse refused it for its rows six times, and the pipeline, the flush and its retry go on without it', async () => {
    // A view whose query fails on the campaign's rows, whatever the disk: events_v1 takes the insert,
    // the view refuses it, and so it does every time the insert is sent again with its token.
    const campaignId = randomUUID();
    const refusing = await refusingView(ch!, { label: 'refusing', campaigns: [campaignId] });
    const wedgeDir = mkdtempSync(path.join(inject('testRoot'), 'refused-wedge-'));
    const config = loadConfig({ DATA_DIR: wedgeDir, EVENT_FLUSH_INTERVAL_MS: '100' });
    const pipeline = await openPipeline({ config, ch: ch!, log: silent });
    const conversion = sampleEvent({ campaign_id: campaignId, type: 'conversion' });
    const token = `conversion:${conversion.event_id}`;
    await expect(pipeline.writeNow([conversion], token)).rejects.toThrow(ApiError);
    expect((await countEvents(campaignId)).rows).toBe(1);
    const spoolDir = path.join(wedgeDir, 'spool');
    const [failed] = readdirSync(spoolDir).filter((name) => name.endsWith('.failed-write'));
    expect(failed).toBeDefined();
    const kept = readFileSync(path.join(spoolDir, failed!), 'utf8');

    // The spool's own events are written, and a flush (which serve lookups wait on after a start) succeeds meanwhile.
    const live = randomUUID();
    pipeline.accept([sampleEvent({ campaign_id: live })]);
    await pipeline.flush();
    expect((await countEvents(live)).rows).toBe(1);

    const quarantined = path.join(wedgeDir, 'quarantine', failed!);
    await eventually(async () => (readdirSync(spoolDir).includes(failed!) ? undefined : true), 'the refused insert to leave the spool', 60_000);
    expect(readFileSync(quarantined, 'utf8')).toBe(kept);
    expect(pipeline.stats().quarantinedWrites).toBe(1);
    // Its retry no longer waits on it: it answers from what events_v1 holds.
    await pipeline.completeRefusedWrites([conversion.event_id]);
    await pipeline.close();

    // The operator fixes the view and moves the file back: the next start sends it with its token,
    // into the view that lacked it and no other table again.
    await refusing.accept();
    renameSync(quarantined, path.join(spoolDir, failed!));
    const restarted = await openPipeline({ config, ch: ch!, log: silent });
    await restarted.flush();
    await restarted.close();
    expect(readdirSync(spoolDir)).toEqual([]);
    const [inView] = await (await ch!.client.query({ query: `SELECT toUInt64(count()) AS rows FROM ${refusing.sink} WHERE campaign_id = {id:UUID}`, query_params: { id: campaignId }, format: 'JSONEachRow' })).json<{ rows: string | number }>();
    expect(Number(inView!.rows)).toBe(1);
    const [stored] = await (
      await ch!.client.query({
        query: `SELECT toUInt64(count()) AS rows, (SELECT toUInt64(sum(conversions)) FROM daily_stats_v1 WHERE campaign_id = {id:UUID}) AS rolled_up FROM events_v1 WHERE campaign_id = {id:UUID}`,
        query_params: { id: campaignId },
        format: 'JSONEachRow',
      })
    ).json<{ rows: string | number; rolled_up: string | number }>();
    expect({ rows: Number(stored!.rows), rolledUp: Number(stored!.rolled_up) }).toEqual({ rows: 1, rolledUp: 1 });
  }, 90_000);

  it("is not sent again when events_v1 holds its events as another instance's retry judged them: the views take that retry's figures", async () => {
    // rev37 item 3: instance A's insert is refused before any table took it; the client's retry
    // reaches B, which judges the conversion again (a changed bid: another cost) into the same token,
    // and is itself refused after events_v1 took it, by a view that lacks it. A's file must not fill
    // that view with A's cost.
    const campaignId = randomUUID();
    const name = campaignId.replaceAll('-', '');
    onTestFinished(async () => {
      await ch!.client.command({ query: `ALTER TABLE events_v1 DROP CONSTRAINT IF EXISTS refuse_${name}` });
    });
    const open = (label: string) => openPipeline({ config: loadConfig({ DATA_DIR: mkdtempSync(path.join(inject('testRoot'), `retry-${label}-`)), EVENT_FLUSH_INTERVAL_MS: '60000' }), ch: ch!, log: silent });
    const [a, b] = [await open('a'), await open('b')];
    const first = sampleEvent({ campaign_id: campaignId, type: 'conversion', cost_nanos: 800_000_000, price_nanos: 800_000_000 });
    const token = `conversion:${first.event_id}`;

    await ch!.client.command({ query: `ALTER TABLE events_v1 ADD CONSTRAINT refuse_${name} CHECK campaign_id != '${campaignId}'` });
    await expect(a.writeNow([first], token)).rejects.toThrow(ApiError);
    await ch!.client.command({ query: `ALTER TABLE events_v1 DROP CONSTRAINT refuse_${name}` });
    expect((await countEvents(campaignId)).rows).toBe(0);

    const refusing = await refusingView(ch!, { label: 'retry', campaigns: [campaignId], withCost: true, deduplicationWindow: 100 });
    await expect(b.writeNow([{ ...first, cost_nanos: 500_000_000, price_nanos: 500_000_000 }], token)).rejects.toThrow(ApiError);
    expect((await countEvents(campaignId)).rows).toBe(1);
    await refusing.accept();

    await a.completeRefusedWrites([first.event_id]);
    await b.completeRefusedWrites([first.event_id]);
    const costs = async (table: string) =>
      (await (await ch!.client.query({ query: `SELECT toString(cost_nanos) AS cost FROM ${table} WHERE campaign_id = {id:UUID}`, query_params: { id: campaignId }, format: 'JSONEachRow' })).json<{ cost: string }>()).map((row) => row.cost);
    expect(await costs('events_v1')).toEqual(['500000000']);
    expect(await costs(refusing.sink)).toEqual(['500000000']);
  });

  it('left by a previous process, is sent again with its token at the next write when events_v1 holds it: stored once, in every view', async () => {
    const leftDir = mkdtempSync(path.join(inject('testRoot'), 'refused-left-'));
    const config = loadConfig({ DATA_DIR: leftDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
    const first = await openPipeline({ config, ch: ch!, log: silent });
    const campaignId = randomUUID();
    const events = [sampleEvent({ campaign_id: campaignId }), sampleEvent({ campaign_id: campaignId })];
    await first.writeNow(events, `import:${campaignId}`);
    await first.close();
    // As a refusal after events_v1 took the insert leaves it: the same body and token kept.
    writeFileSync(path.join(leftDir, 'spool', `${Date.now().toString().padStart(15, '0')}-000000000000.failed-write`), `${events.map(spoolLine).join('')}${JSON.stringify(`import:${campaignId}`)}\n`);
    const restarted = await openPipeline({ config, ch: ch!, log: silent });
    await restarted.flush();
    await restarted.close();
    expect(readdirSync(path.join(leftDir, 'spool'))).toEqual([]);
    expect(await countEvents(campaignId)).toEqual({ rows: 2, distinct: 2, rolledUp: 2, reported: 2 });
  });
});
