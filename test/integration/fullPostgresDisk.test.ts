import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startServeChild } from '../helpers/serveChild.js';
import { canMount, fillDisk, mountTmpfs, notRootMessage } from '../helpers/tmpfs.js';
import { testDatabaseUrl } from '../helpers/testApp.js';

const embedded = testDatabaseUrl === undefined;
const MIB = 1024 * 1024;

describe.skipIf(!canMount || !embedded)('embedded PGlite on a disk that fills up (real tmpfs, `adsvc serve`)', () => {
  /**
   * rev41 R4: with a few MB free, management writes went on (their rows fit the space) until a
   * commit filled PGlite's write-ahead log file and needed the next (16 MB): a PANIC in Postgres,
   * after which PGlite never returned; the write got no answer, nor did anything else, until the
   * watchdog ended the process (736 writes answered 201 first). A real process, so that a write that
   * never returns fails this test instead of holding the test runner's own thread.
   */
  it('answers writes 503 below the free-space floor, with /healthz failing postgres, and 201 again once space is freed', async () => {
    const cleanups: Array<() => unknown> = [];
    onTestFinished(() => {
      for (const cleanup of cleanups.reverse()) cleanup();
    });
    const dataDir = path.join(mkdtempSync(path.join(inject('testRoot'), 'full-postgres-')), 'data');
    const postgresDir = path.join(dataDir, 'postgres');
    mkdirSync(dataDir);
    cleanups.push(mountTmpfs(postgresDir, 128 * MIB));
    cpSync(inject('pgliteTemplate'), postgresDir, { recursive: true });
    const { url, send, admin, created, output, child } = await startServeChild(dataDir, 'full-disk-test-admin-token-0123456789');
    const organization = await created(send('POST', '/v1/admin/organizations', admin, { name: 'full-disk' }));
    const user = await created(send('POST', `/v1/admin/organizations/${organization.id}/users`, admin, { email: 'full-disk@example.com' }));
    const advertiser = { 'x-api-key': (await created(send('POST', `/v1/admin/organizations/${organization.id}/api-keys`, admin, { permissions: ['campaigns'] }))).key };
    const compose = (name: string) =>
      send('POST', '/v1/advertiser/campaigns/compose', advertiser, {
        campaign: { name, brand_name: 'Acme', user_id: user.id },
        line_item: { title: name, objective: 'traffic', primary_kpi: 'clicks', budget: { daily: 50, currency: 'USD' }, bids: { bid_type: 'cpc', bid_value: 1.25 } },
      });
    const lineItemId = (await created<{ line_item: { id: string } }>(compose('before'))).line_item.id;
    // About 90 KB of rows and write-ahead log a request: 20 creatives with long URLs.
    const creative = (write: number, index: number) => ({
      format: 'contextual_card',
      title: `creative ${write}-${index}`,
      body: 'b'.repeat(300),
      cta: 'Shop now',
      destination_url: `https://shop.example.com/${write}/${index}/${'a'.repeat(1900)}`,
      image_url: `https://img.example.com/${write}/${index}/${'z'.repeat(1900)}`,
    });
    const attach = (write: number) => send('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, advertiser, { creatives: Array.from({ length: 20 }, (_, index) => creative(write, index)) });
    expect((await attach(0)).status).toBe(201);

    // 8 MB left: room for many rows, not for another WAL file.
    const freeSpace = fillDisk(postgresDir, 8 * MIB);
    let refused: Response | undefined;
    const answered: number[] = [];
    for (let write = 1; write <= 2000 && refused === undefined; write++) {
      const response = await (write % 2 === 1 ? attach(write) : compose(`campaign ${write}`)).catch((error: unknown) => {
        throw new Error(`write ${write} got no answer in 20 s (${(error as Error).message}); the service said: ${output()}`);
      });
      answered.push(response.status);
      if (response.status !== 201) refused = response;
    }
    expect(refused, `2000 writes answered 201 on a full disk`).toBeDefined();
    expect([refused!.status, refused!.headers.get('retry-after'), ((await refused!.json()) as { error: { code: string } }).error.code]).toEqual([503, '5', 'unavailable']);
    // Below the floor from the start: not one write was taken.
    expect(answered).toEqual([503]);
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(20_000) });
    expect([health.status, ((await health.json()) as { checks: { postgres: string } }).checks.postgres]).toEqual([503, 'failing']);
    expect(output()).toMatch(/less than the 32\.0 MB kept free for PGlite's write-ahead log/);

    // Space freed: the same writes are taken again, with no restart.
    freeSpace();
    await eventually(() => fetch(`${url}/healthz`).then((response) => (response.ok ? true : undefined), () => undefined), '/healthz to pass with room again', 30_000, 200);
    expect((await attach(2001)).status).toBe(201);
    expect((await compose('after')).status).toBe(201);
    expect(child.exitCode).toBeNull();
  }, 180_000);
});

if (!canMount) console.warn(notRootMessage);
