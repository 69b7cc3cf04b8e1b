import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { packageRoot } from '../../src/packageRoot.js';
import { startServeChild } from '../helpers/serveChild.js';
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

describe.skipIf(!canMount || !embedded)('the first transaction after the fault, when its pages are in memory (real ext4, `adsvc serve`)', () => {
  /**
   * try40 F10: a transaction whose rows fit pages PGlite holds in memory meets the read-only disk
   * only at its commit, in the WAL write: a PANIC in Postgres, after which PGlite's own ROLLBACK
   * never returns. The write got no answer, nor did anything else (healthz, serving), until the
   * watchdog ended the process 30 s later. A real process, so that a write that never returns
   * fails this test instead of holding the test runner's own thread.
   */
  it('answers it 503 at once, and goes on answering with /healthz failing postgres', async () => {
    const cleanups: Array<() => unknown> = [];
    onTestFinished(() => {
      for (const cleanup of cleanups.reverse()) cleanup();
    });
    const dataDir = path.join(mkdtempSync(path.join(inject('testRoot'), 'read-only-process-')), 'data');
    mkdirSync(dataDir);
    const disk = mountExt4(path.join(dataDir, 'postgres'), 200 * MIB);
    cleanups.push(() => disk.unmount());
    cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
    const { url, send, admin, created, output, child } = await startServeChild(dataDir, 'read-only-test-admin-token-0123456789');
    const organization = await created(send('POST', '/v1/admin/organizations', admin, { name: 'read-only' }));
    const user = await created(send('POST', `/v1/admin/organizations/${organization.id}/users`, admin, { email: 'read-only@example.com' }));
    const advertiser = { 'x-api-key': (await created(send('POST', `/v1/admin/organizations/${organization.id}/api-keys`, admin, { permissions: ['campaigns'] }))).key };
    const campaign = await created(send('POST', '/v1/advertiser/campaigns', advertiser, { name: 'before', brand_name: 'b', user_id: user.id }));
    // The same small transaction a few times: every file it touches is open and its pages in memory.
    const rename = (name: string) => send('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, advertiser, { name });
    for (let write = 0; write < 5; write++) expect((await rename(`before-${write}`)).status).toBe(200);

    disk.fail();
    const refused = await rename('after').catch((error: unknown) => {
      throw new Error(`the first write after the fault got no answer in 20 s (${(error as Error).message}); the service said: ${output()}`);
    });
    expect([refused.status, refused.headers.get('retry-after'), ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([503, '5', 'unavailable']);
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(20_000) });
    expect([health.status, ((await health.json()) as { checks: { postgres: string } }).checks.postgres]).toEqual([503, 'failing']);
    expect((await rename('later')).status).toBe(503);
    expect(child.exitCode).toBeNull();
  }, 120_000);
});

describe.skipIf(!canMount || !embedded)('writes that wait for PGlite while the disk fails (real ext4, a process of its own)', () => {
  /**
   * rev41 R11: the check ran when a statement was sent, before it waited its turn behind a
   * transaction holding PGlite; a disk that failed meanwhile met the waiting writes unchecked: the
   * first in its commit's WAL write (a PANIC in Postgres), and the next, sent to PGlite after that,
   * never returned. A process of its own, so that a write that never returns fails this test
   * instead of holding the test runner's own thread.
   */
  it('are checked when their turn comes, and answered 503', async () => {
    const cleanups: Array<() => unknown> = [];
    onTestFinished(() => {
      for (const cleanup of cleanups.reverse()) cleanup();
    });
    const dataDir = path.join(mkdtempSync(path.join(inject('testRoot'), 'queued-write-')), 'data');
    mkdirSync(dataDir);
    const disk = mountExt4(path.join(dataDir, 'postgres'), 200 * MIB);
    cleanups.push(() => disk.unmount());
    cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(packageRoot, 'test/helpers/queuedBehindTransactionChild.ts'), dataDir, disk.errorTrigger], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    let output = '';
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(exited, `the process did not end in 30 s (a queued write never returned?); it said: ${output}`).toBe(true);
    const { queued } = JSON.parse(output.trim().split('\n').at(-1)!) as { queued: string[] };
    expect(queued).toHaveLength(2);
    for (const answer of queued) expect(answer).toMatch(/^StoreUnavailableError: Postgres is unavailable: PGlite's files in .* can no longer be written: EROFS/);
  }, 120_000);
});

if (!canMount) console.warn(notRootMessage);
