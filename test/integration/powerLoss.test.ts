import { copyFileSync, cpSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { openStores, type Stores } from '../../src/runtime.js';
import { mountCopyAfterPowerLoss, mountExt4 } from '../helpers/ext4.js';
import { tempDirectory } from '../helpers/tempDirectory.js';
import { canMount, notRootMessage } from '../helpers/tmpfs.js';
import { startTestAppOn, testConfig, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { fromAddress, pixelUrl, readerAddress, serveClaims, signedToken, trackedLineItem, waitForEvents } from '../helpers/trackingFixtures.js';

/**
 * try40 F5: with EVENT_SPOOL_FSYNC=true a spooled segment is deleted once embedded ClickHouse
 * acknowledges its insert, but the engine's parts were still in the page cache: a power loss within
 * the kernel's writeback delay (30 s) lost every event already handed over (600 of 600 answered
 * 200). A power loss is emulated as a copy of the disk image the loop device writes to: what the
 * disk holds, without what the kernel had not written yet; e2fsck then replays its journal.
 */
const MIB = 1024 * 1024;
const PIXELS = 300;
const env = { EVENT_SPOOL_FSYNC: 'true' };

/**
 * A power loss under `store`'s directory: an app runs `traffic` with that directory on a disk of its
 * own, the disk's image is copied as it stands (what the disk holds, without what the kernel had not
 * written yet), the app and stores close, and `afterRestart` gets the stores opened again on the copy
 * (after e2fsck, as a machine coming back does) with what `traffic` returned. The other store stays
 * on the test's own disk: embedded Postgres is copied over as it is when the events are the question.
 * chdb opens one data directory per process, so everything is closed before the test ends.
 */
async function powerLossOf<Done>(
  store: 'clickhouse' | 'postgres',
  traffic: (ctx: TestContext) => Promise<Done>,
  afterRestart: (stores: Stores, dataDir: string, done: Done) => Promise<void>,
): Promise<void> {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  onTestFinished(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const root = tempDirectory(`power-loss-${store}-`);
  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir);
  const disk = mountExt4(path.join(dataDir, store), 600 * MIB);
  cleanups.push(() => disk.unmount());
  if (testDatabaseUrl === undefined) cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
  const stores: Stores = await openStores(testConfig(dataDir, env));
  const ctx: TestContext = await startTestAppOn(stores, dataDir, env);
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await ctx.close().then(() => stores.close());
  });
  const done = await traffic(ctx);
  const copy = path.join(root, 'after-power-loss.ext4');
  copyFileSync(disk.image, copy);
  await ctx.close();
  await stores.close();
  closed = true;

  const restarted = path.join(root, 'restarted');
  mkdirSync(restarted);
  if (store === 'clickhouse' && testDatabaseUrl === undefined) cpSync(path.join(dataDir, 'postgres'), path.join(restarted, 'postgres'), { recursive: true });
  cleanups.push(mountCopyAfterPowerLoss(copy, path.join(restarted, store)));
  const storesAfter = await openStores(testConfig(restarted, env));
  cleanups.push(() => storesAfter.close());
  await afterRestart(storesAfter, restarted, done);
}

describe.skipIf(!canMount)('a power loss with EVENT_SPOOL_FSYNC=true (real ext4 on a loop device)', () => {
  it('keeps every pixel answered 200, including those already written to embedded ClickHouse', async () => {
    await powerLossOf(
      'clickhouse',
      async (ctx) => {
        const item = await trackedLineItem(ctx);
        for (let pixel = 0; pixel < PIXELS; pixel++) {
          const answer = await fromAddress(ctx, pixelUrl(signedToken(ctx, serveClaims(item, 'tCPM', 2_000_000))), readerAddress());
          expect(answer.statusCode, answer.body).toBe(200);
        }
        // Every pixel is in ClickHouse and out of the spool before the power goes.
        await waitForEvents(ctx, item.lineItemId, PIXELS, 30_000);
        await expect.poll(() => ctx.app.inject({ method: 'GET', url: '/healthz' }).then((health) => health.json().checks.event_backlog), { timeout: 10_000 }).toBe('ok');
        return item;
      },
      async (stores, dataDir, item) => {
        const after = await startTestAppOn(stores, dataDir, env);
        try {
          const events = await waitForEvents(after, item.lineItemId, PIXELS, 30_000);
          expect(events.length).toBe(PIXELS);
        } finally {
          await after.close();
        }
      },
    );
  }, 180_000);

  it.skipIf(testDatabaseUrl !== undefined)('keeps every management write answered 2xx on embedded PGlite', async () => {
    await powerLossOf(
      'postgres',
      async (ctx) => {
        const names = Array.from({ length: 20 }, (_, index) => `power-loss-${index}-${randomUUID()}`);
        for (const name of names) expect((await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name } })).statusCode).toBe(201);
        return names;
      },
      async (stores, _dataDir, names) => {
        const { rows } = await stores.db.query<{ name: string }>('SELECT name FROM organizations WHERE name = ANY($1::text[])', [names]);
        expect(rows.map((row) => row.name).sort()).toEqual([...names].sort());
      },
    );
  }, 180_000);
});

if (!canMount) console.warn(notRootMessage);
