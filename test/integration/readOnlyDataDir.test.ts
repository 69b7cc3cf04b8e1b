import { cpSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStores, type Stores } from '../../src/runtime.js';
import { mountExt4 } from '../helpers/ext4.js';
import { createOrganization } from '../helpers/factories.js';
import { canMount, notRootMessage } from '../helpers/tmpfs.js';
import { startTestAppOn, testConfig, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';

/**
 * try39 F8: a DATA_DIR the kernel turns read-only under the running service (ext4
 * `errors=remount-ro` after a disk error) made embedded PGlite refuse every write with "could not
 * extend file ...: Read-only file system": management answered 500 `internal_error`, /healthz kept
 * `postgres: ok`, and later a compose spun the process for good.
 */
const embedded = testDatabaseUrl === undefined;
const MIB = 1024 * 1024;

let ctx: TestContext;
let stores: Stores;
let disk: ReturnType<typeof mountExt4> | undefined;

describe.skipIf(!canMount || !embedded)('a DATA_DIR that turns read-only under the service (real ext4, embedded PGlite)', () => {
  beforeAll(async () => {
    const dataDir = path.join(mkdtempSync(path.join(inject('testRoot'), 'read-only-')), 'data');
    disk = mountExt4(dataDir, 600 * MIB);
    cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
    stores = await openStores(testConfig(dataDir));
    ctx = await startTestAppOn(stores, dataDir);
    await createOrganization(ctx);
  }, 120_000);

  afterAll(async () => {
    // The stores cannot write their last files on a read-only disk: their close is bounded, not awaited for good.
    const bounded = (closing: Promise<unknown> | undefined) => Promise.race([closing?.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await bounded(ctx?.close());
    await bounded(stores?.close());
    disk?.unmount();
  }, 60_000);

  it('answers management writes 503 with Retry-After, never 500, and fails /healthz postgres until restart', async () => {
    disk!.fail();
    // Writes go on until one reaches the disk (a small insert may fit a page already in memory): each
    // answer is 201 or 503, never 500.
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<TestContext['admin']>> | undefined;
    for (let attempt = 0; attempt < 200 && refused === undefined; attempt++) {
      const response = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: `org-${attempt}-${'x'.repeat(180)}` } });
      statuses.push(response.statusCode);
      if (response.statusCode !== 201) refused = response;
    }
    expect(refused, `every write answered 201: ${statuses.length}`).toBeDefined();
    expect([refused!.statusCode, refused!.json().error.code, refused!.headers['retry-after']], refused!.body).toEqual([503, 'unavailable', '5']);

    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode, health.body).toBe(503);
    expect(health.json().checks.postgres).toBe('failing');

    // The store takes nothing more until a restart: reads and writes alike answer 503, at once.
    for (const request of [
      { method: 'GET' as const, url: '/v1/admin/organizations' },
      { method: 'POST' as const, url: '/v1/admin/organizations', payload: { name: 'after' } },
    ]) {
      const response = await ctx.admin(request);
      expect([response.statusCode, response.headers['retry-after']], response.body).toEqual([503, '5']);
    }
  }, 120_000);
});

if (!canMount) console.warn(notRootMessage);
