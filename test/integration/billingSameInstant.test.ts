import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import type { Stores } from '../../src/runtime.js';
import { newServeId } from '../../src/serving/serveId.js';
import { migratePostgres } from '../../src/store/migrate.js';
import { openPostgres, type Postgres } from '../../src/store/postgres.js';
import { billingLock } from '../../src/tracking/billingLock.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import type { EventPipeline } from '../../src/tracking/eventPipeline.js';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { eventually } from '../helpers/eventually.js';
import { startPostgresServer, unavailableReason, type PostgresServer } from '../helpers/postgresServer.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { startTestAppOn, testConfig, testStores, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, eventsOf, fromAddress, rollupOf, serveClaims, signedToken, trackedLineItem, waitForEvents } from '../helpers/trackingFixtures.js';
import { metricSample } from '../helpers/metricSample.js';

/**
 * Two instances that each hold a valid impression of the same serve and write them at the same
 * moment: without a lock around "look up + insert" (billingLock.ts) both look before either
 * inserts, and both bill. The instances share one ClickHouse (chdb is one per process, so they are
 * two pipelines or apps in this process, each with its own DATA_DIR) and one Postgres: the suite's
 * (PGlite, or the CI's server in the server pass) and a PostgreSQL server of this file's own, which
 * it also stops, and whose lock a killed process holds.
 */
if (unavailableReason) console.warn(unavailableReason);

const IMPRESSION_PRICE = 2_500_000;
const silent = pino({ level: 'silent' });

let suiteStores: Stores;
let server: PostgresServer | undefined;
let serverStores: Stores | undefined;

beforeAll(async () => {
  suiteStores = (await testStores()).stores;
  if (unavailableReason) return;
  server = await startPostgresServer();
  const db = await openPostgres({ databaseUrl: server.url, dataDir: '' });
  await migratePostgres(db);
  // ClickHouse is the suite's (migrated by testStores); only Postgres is this file's.
  serverStores = { db, ch: suiteStores.ch, close: () => db.close() };
});

afterAll(async () => {
  await serverStores?.close();
  server?.destroy();
});

const freshDataDir = (name: string) => mkdtempSync(path.join(inject('testRoot'), name));

/** An instance's event pipeline as app.ts builds it, writing only when flushed. */
function pipelineOn(db: Postgres): Promise<EventPipeline> {
  return createClickHouseEventPipeline({
    config: testConfig(freshDataDir('pipeline-'), { EVENT_FLUSH_INTERVAL_MS: '600000' }),
    ch: suiteStores.ch,
    log: silent,
    billing: billingLock(db),
  });
}

/** A valid impression of a fresh serve, as a pixel at an instance that never saw the serve accepts it. */
const firstImpression = () => sampleEvent({ serve_id: newServeId(Date.now()), campaign_id: randomUUID() });
/** The same serve's impression with its own event id, accepted by another instance. */
const sameServe = (event: ReturnType<typeof sampleEvent>) => ({ ...event, event_id: randomUUID(), event_time: Date.now() });

/** The serve's stored impressions (their ivt, sorted) and what the campaign was billed. */
async function billingOf(campaignId: string) {
  const result = await suiteStores.ch.client.query({
    query: `SELECT arraySort(groupArray(ivt)) AS verdicts,
                   (SELECT toFloat64(sum(impressions)) FROM daily_stats_v1 WHERE campaign_id = {id:UUID}) AS impressions,
                   (SELECT toFloat64(sum(spend_nanos)) FROM daily_stats_v1 WHERE campaign_id = {id:UUID}) AS spend_nanos
            FROM events_v1 WHERE campaign_id = {id:UUID}`,
    query_params: { id: campaignId },
    format: 'JSONEachRow',
  });
  return (await result.json<{ verdicts: string[]; impressions: number; spend_nanos: number }>())[0]!;
}

describe.each([
  { postgres: "the suite's Postgres", db: () => suiteStores.db, skip: false },
  { postgres: 'a PostgreSQL server (an advisory lock)', db: () => serverStores!.db, skip: unavailableReason !== undefined },
])('two instances on $postgres writing the same serve at the same moment', ({ db, skip }) => {
  it.skipIf(skip)('bill it once: one impression is stored billed, the other as duplicate', async () => {
    const a = await pipelineOn(db());
    const b = await pipelineOn(db());
    try {
      const impression = firstImpression();
      a.accept([impression]);
      b.accept([sameServe(impression)]);
      await Promise.all([a.flush(), b.flush()]);
      expect(await billingOf(impression.campaign_id)).toEqual({ verdicts: ['', 'duplicate'], impressions: 1, spend_nanos: impression.cost_nanos });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe.skipIf(unavailableReason !== undefined)('the lock held by another instance (a PostgreSQL server)', () => {
  let holder: ChildProcess | undefined;

  afterAll(() => {
    holder?.kill('SIGKILL');
  });

  /** A process that takes the lock as a pipeline does and keeps it (test/helpers/billingLockHolder.ts). */
  async function holdTheLock(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/billingLockHolder.ts'), server!.url], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
      child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock`)));
    });
    return child;
  }

  /** Sessions of the server waiting for an advisory lock. */
  async function waitingForAdvisoryLock(): Promise<number> {
    const { rows } = await serverStores!.db.query<{ waiting: number }>("SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
    return rows[0]!.waiting;
  }

  it('waits for it, writes nothing meanwhile, and goes on once its holder is killed -9', async () => {
    holder = await holdTheLock();
    const pipeline = await pipelineOn(serverStores!.db);
    try {
      const impression = firstImpression();
      pipeline.accept([impression]);
      const flushed = pipeline.flush();
      await eventually(async () => ((await waitingForAdvisoryLock()) > 0 ? true : undefined), 'the pipeline to wait for the lock');
      expect((await billingOf(impression.campaign_id)).verdicts).toEqual([]);
      // Postgres ends the dead holder's session and with it the transaction's lock.
      holder.kill('SIGKILL');
      await flushed;
      expect(await billingOf(impression.campaign_id)).toEqual({ verdicts: [''], impressions: 1, spend_nanos: impression.cost_nanos });
    } finally {
      await pipeline.close();
    }
  });
});

describe.skipIf(unavailableReason !== undefined)('Postgres unavailable when two instances write (a PostgreSQL server, stopped)', () => {
  const pixel = (ctx: TestContext, token: string) => fromAddress(ctx, `${IMPRESSION_PATH}${token}`, ADDRESSES.comcastResidential);

  const writeFailures = (ctx: TestContext) => metricSample(ctx, 'adsvc_event_write_failures_total');

  it('answers pixels 200 once spooled, keeps the events until Postgres is back, then bills the serve once', async () => {
    const env = { TRUST_PROXY: '127.0.0.1' };
    const a = await startTestAppOn(serverStores!, freshDataDir('instance-'), env);
    const b = await startTestAppOn(serverStores!, freshDataDir('instance-'), env);
    try {
      const item = await trackedLineItem(a);
      const token = signedToken(a, serveClaims(item, 'tCPM', IMPRESSION_PRICE));
      server!.stop();
      // The serve's first impression at each instance: both valid, both spooled.
      expect((await pixel(a, token)).statusCode).toBe(200);
      expect((await pixel(b, token)).statusCode).toBe(200);
      // Each has tried to write and could not take the lock: nothing reached ClickHouse.
      await eventually(async () => ((await writeFailures(a)) > 0 && (await writeFailures(b)) > 0 ? true : undefined), 'a failed write at both instances');
      expect(await eventsOf(a, item.lineItemId)).toEqual([]);
      server!.start();
      const events = await waitForEvents(a, item.lineItemId, 2, 30_000);
      expect(events.map((event) => event.ivt).sort()).toEqual(['', 'duplicate']);
      expect(await rollupOf(a, item.lineItemId)).toMatchObject({ impressions: 1, spend_nanos: IMPRESSION_PRICE });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
