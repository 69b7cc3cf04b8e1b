import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { openStores, type Stores } from '../../src/runtime.js';
import pg from 'pg';
import { AdvisoryLockTimeoutError, withAdvisoryLock } from '../../src/store/advisoryLock.js';
import { migratePostgres } from '../../src/store/migrate.js';
import { openPostgres, type Postgres, type SqlExecutor } from '../../src/store/postgres.js';
import { StoreUnavailableError } from '../../src/store/storeUnavailable.js';
import { billingLock } from '../../src/tracking/billingLock.js';
import { CLICK_PATH } from '../../src/tracking/trackingLinks.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { startPostgresServer, unavailableReason, type PostgresServer } from '../helpers/postgresServer.js';
import { creative, eventuallyServed, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { canMount, fillDisk, mountTmpfs } from '../helpers/tmpfs.js';
import { startTestAppOn, testConfig, testStores, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, DESTINATION, eventsOf, fromAddress, serveClaims, signedToken, trackedLineItem, type TrackedLineItem } from '../helpers/trackingFixtures.js';

/**
 * A real PostgreSQL server, stopped and started by the test: clicks keep redirecting and are
 * recorded, management and admin routes answer 503 with Retry-After, and all recovers when it is back.
 */
if (unavailableReason) console.warn(unavailableReason);

describe.skipIf(unavailableReason !== undefined)('a PostgreSQL server outage', () => {
  let server: PostgresServer;
  let stores: Stores;
  let ctx: TestContext;

  beforeAll(async () => {
    server = await startPostgresServer();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'outage-'));
    stores = await openStores(testConfig(dataDir, { DATABASE_URL: server.url }));
    ctx = await startTestAppOn(stores, dataDir, { DATABASE_URL: server.url });
  });

  afterAll(async () => {
    vi.useRealTimers();
    await ctx?.close();
    await stores?.close();
    server?.destroy();
  });

  function click(item: TrackedLineItem, headers: Record<string, string> = {}) {
    const url = `${CLICK_PATH}${signedToken(ctx, serveClaims(item, 'CPC', 1_000_000))}`;
    return fromAddress(ctx, url, ADDRESSES.comcastResidential, undefined, headers);
  }

  it('keeps redirecting and recording clicks, and answers 503 unavailable on management and admin routes', async () => {
    const advertiser = await createAdvertiser(ctx);
    // In the serving index, never clicked on this instance: its destination comes from the index.
    const publisher = await createPublisher(ctx);
    const placementId = (await createPlacement(ctx, publisher.id)).id;
    const word = uniqueWord();
    const indexedDestination = 'https://indexed.example/landing';
    const servable = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: [word] } },
      creatives: [{ ...creative(), destination_url: indexedDestination }],
    });
    await eventuallyServed(ctx, publisher.token, { placement_id: placementId, context: { query: word, response: word } }, servable.lineItemId);
    const { rows } = await stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [servable.lineItemId]);
    const inIndex: TrackedLineItem = { ...servable, key: advertiser.key, organizationId: '', creativeId: rows[0]!.id, placementId, publisherId: publisher.id };
    // Not in the index (a draft), clicked once before the outage: its destination is cached.
    const cachedItem = await trackedLineItem(ctx);
    expect((await click(cachedItem)).statusCode).toBe(302);
    // Neither cached nor indexed: nothing can say where it goes.
    const unknownItem = await trackedLineItem(ctx);

    server.stop();
    // Past the click cache's 60 s lifetime: only a stale-on-error answer can redirect now.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 120_000);

    const fromIndex = await click(inIndex);
    expect(fromIndex.statusCode).toBe(302);
    expect(fromIndex.headers.location).toMatch(/^https:\/\/indexed\.example\/landing\?adsvc_click_id=/);
    const fromCache = await click(cachedItem);
    expect(fromCache.statusCode).toBe(302);
    expect(fromCache.headers.location).toContain(new URL(DESTINATION).pathname);
    const unknown = await click(unknownItem);
    expect(unknown.statusCode).toBe(503);
    expect(unknown.headers['retry-after']).toBe('5');
    expect(unknown.json().error.code).toBe('unavailable');
    // The person who clicked (a browser's navigation; an old browser's Accept) sees a page, with the same 503 and Retry-After.
    for (const headers of [{ 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' }, { accept: 'text/html,application/xhtml+xml' }] as Array<Record<string, string>>) {
      const page = await click(unknownItem, headers);
      expect([page.statusCode, page.headers['retry-after'], page.headers['content-type']]).toEqual([503, '5', 'text/html; charset=utf-8']);
      expect(page.body).toContain('try again</a> in a few seconds');
    }

    const management = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key } });
    expect(management.statusCode).toBe(503);
    expect(management.json().error.code).toBe('unavailable');
    expect(management.headers['retry-after']).toBe('5');
    const admin = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: 'During the outage' } });
    expect(admin.statusCode).toBe(503);
    expect(admin.json().error.code).toBe('unavailable');
    const line = { type: 'impression', time: new Date().toISOString(), line_item_id: cachedItem.lineItemId, placement_id: cachedItem.placementId, ip: ADDRESSES.comcastResidential };
    const imported = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson' }, payload: `${JSON.stringify(line)}\n` });
    expect(imported.statusCode).toBe(503);
    expect(imported.json().error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/no line is imported$/) });
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json().checks.postgres).toBe('failing');

    vi.useRealTimers();
    server.start();
    await eventually(async () => {
      const again = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key } });
      return again.statusCode === 200 ? true : undefined;
    }, 'management routes to answer again');

    const clicksOf = async (lineItemId: string) => (await eventsOf(ctx, lineItemId)).filter((event) => event.type === 'click').length;
    await eventually(async () => ((await clicksOf(servable.lineItemId)) === 1 && (await clicksOf(cachedItem.lineItemId)) === 2 ? true : undefined), 'the outage clicks in ClickHouse');
    expect(await clicksOf(unknownItem.lineItemId)).toBe(0);
  });
});

/**
 * A lock another session holds on a PostgreSQL server (an operator's LOCK TABLE, another instance's
 * migration): a management call waits at most POSTGRES_LOCK_WAIT_MS for it, then answers 503 with
 * Retry-After instead of hanging for as long as the lock lasts; the instances' own advisory locks
 * (billing, migrations) still wait for their holder however long it works.
 */
describe.skipIf(unavailableReason !== undefined)('a lock held on a PostgreSQL server', () => {
  let server: PostgresServer;
  let stores: Stores;
  let ctx: TestContext;
  let holder: pg.Client;
  // A query bound of 1 s: an advisory lock waited for longer is waited for in slices (advisoryLock.ts).
  const env = { POSTGRES_LOCK_WAIT_MS: '400', POSTGRES_QUERY_TIMEOUT_MS: '1000' };

  beforeAll(async () => {
    server = await startPostgresServer();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'lock-wait-'));
    stores = await openStores(testConfig(dataDir, { DATABASE_URL: server.url, ...env }));
    ctx = await startTestAppOn(stores, dataDir, { DATABASE_URL: server.url, ...env });
    holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
  });

  afterAll(async () => {
    await holder?.end();
    await ctx?.close();
    await stores?.close();
    server?.destroy();
  });

  it('answers a management call 503 unavailable once the wait passes, and 200 when the lock goes', async () => {
    const advertiser = await createAdvertiser(ctx);
    const list = () => ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key } });
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    // Without the wait the call hangs until the lock goes, and the test times out.
    const locked = await list();
    expect([locked.statusCode, locked.headers['retry-after'], locked.json().error.code]).toEqual([503, '5', 'unavailable']);
    await holder.query('ROLLBACK');
    expect((await list()).statusCode).toBe(200);
  });

  it('lets an advisory lock wait past that limit and past the query bound for its holder, and gives up at its own limit', async () => {
    const key = [77, Math.floor(Math.random() * 1e9)] as const;
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [key[0], key[1]]);
    let ran = 0;
    const step = async () => {
      ran += 1;
      return 'done';
    };
    const waiting = withAdvisoryLock(stores.db, key, step);
    const waitingAtMost = withAdvisoryLock(stores.db, key, step, { waitAtMostMs: 60_000 });
    const givingUp = withAdvisoryLock(stores.db, key, step, { waitAtMostMs: 2500 }).catch((error: unknown) => error);
    expect(await givingUp).toBeInstanceOf(AdvisoryLockTimeoutError);
    expect(ran).toBe(0);
    await holder.query('COMMIT');
    expect(await Promise.all([waiting, waitingAtMost])).toEqual(['done', 'done']);
  });

  it('waits through many slices within one savepoint, not one more nested for each slice', async () => {
    const key = [78, Math.floor(Math.random() * 1e9)] as const;
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [key[0], key[1]]);
    // The step counts the savepoints the wait left around it: each RELEASE ends the innermost of the
    // name, until none is left (3B001).
    const nestedSavepoints = async (tx: SqlExecutor) => {
      for (let count = 0; ; count++) {
        try {
          await tx.query('RELEASE SAVEPOINT advisory_lock_wait');
        } catch (error) {
          if ((error as { code?: string }).code !== '3B001') throw error;
          return count;
        }
      }
    };
    const started = Date.now();
    const waiting = withAdvisoryLock(stores.db, key, nestedSavepoints);
    // Held for 3 s: six of the wait's slices (half the 1 s query bound each).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await holder.query('COMMIT');
    expect(await waiting).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  });
});

/**
 * A PostgreSQL server that stops answering without closing its connections (every process of it
 * stopped with SIGSTOP: a frozen VM, a failover whose old primary keeps its sockets, a network cut
 * without a reset). A request on a pooled connection opened before the freeze waits at most
 * POSTGRES_QUERY_TIMEOUT_MS for its answer, then 503 with Retry-After, as when the server refuses,
 * and that connection is destroyed: once the server answers again, every request does.
 */
describe.skipIf(unavailableReason !== undefined)('a PostgreSQL server that stops answering', () => {
  let server: PostgresServer;
  let stores: Stores;
  let ctx: TestContext;
  // Well under the pool's 5 s wait for a new connection, which also ends in 503: a request answered
  // before that was answered on a connection the pool already had.
  const env = { POSTGRES_QUERY_TIMEOUT_MS: '1000' };
  const NEW_CONNECTION_WAIT_MS = 5000;

  beforeAll(async () => {
    server = await startPostgresServer();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'frozen-'));
    stores = await openStores(testConfig(dataDir, { DATABASE_URL: server.url, ...env }));
    ctx = await startTestAppOn(stores, dataDir, { DATABASE_URL: server.url, ...env });
  });

  afterAll(async () => {
    // Resumed first: a test that failed while the server was frozen leaves its requests waiting.
    server?.thaw();
    await ctx?.close();
    await stores?.close();
    server?.destroy();
  });

  it('answers requests on pooled connections 503 unavailable within the query bound, and normally once it answers again', async () => {
    const advertiser = await createAdvertiser(ctx);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/advertiser/campaigns',
      headers: { 'x-api-key': advertiser.key },
      payload: { name: 'Before the freeze', brand_name: 'Brand', user_id: advertiser.user.id },
    });
    expect(created.statusCode).toBe(201);
    const campaignId = created.json().data.id as string;
    const requests = {
      get: () => ctx.app.inject({ method: 'GET', url: `/v1/advertiser/campaigns/${campaignId}`, headers: { 'x-api-key': advertiser.key } }),
      // A transaction: its timed-out statement leaves no ROLLBACK waiting behind it.
      patch: () => ctx.app.inject({ method: 'PATCH', url: `/v1/advertiser/campaigns/${campaignId}`, headers: { 'x-api-key': advertiser.key }, payload: { name: 'During the freeze' } }),
      admin: () => ctx.admin({ method: 'GET', url: `/v1/admin/organizations/${advertiser.organization.id}` }),
    };
    // Every pooled connection opened and left idle (the pool keeps 10), so that the requests below
    // find one open, as under traffic, instead of opening one (which the pool bounds on its own).
    await Promise.all(Array.from({ length: 10 }, () => requests.get()));

    server.freeze();
    const frozenAt = Date.now();
    const answered = await Promise.all(
      Object.entries(requests).map(async ([name, request]) => {
        const response = await request();
        return { name, ms: Date.now() - frozenAt, status: response.statusCode, retryAfter: response.headers['retry-after'], code: response.json().error?.code };
      }),
    );
    for (const answer of answered) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '5', code: 'unavailable' });
      expect(answer.ms).toBeLessThan(NEW_CONNECTION_WAIT_MS);
    }

    server.thaw();
    // No connection left waiting on the frozen server comes back from the pool.
    for (const [name, request] of Object.entries(requests)) {
      await eventually(async () => ((await request()).statusCode === 200 ? true : undefined), `${name} to answer 200 again`);
    }
    expect((await requests.get()).json().data.name).toBe('During the freeze');
  }, 30_000);
});

/**
 * A PostgreSQL server that takes only reads (the old primary after a failover, or a standby the
 * address now points at): writes are refused with 25006, which is the store unavailable, 503 with
 * Retry-After, not a 500; `/healthz` fails `postgres`, so the load balancer stops routing here.
 */
describe.skipIf(unavailableReason !== undefined)('a PostgreSQL server that takes only reads', () => {
  let server: PostgresServer;
  let stores: Stores;
  let ctx: TestContext;
  let operator: pg.Client;

  beforeAll(async () => {
    server = await startPostgresServer();
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'read-only-'));
    stores = await openStores(testConfig(dataDir, { DATABASE_URL: server.url }));
    ctx = await startTestAppOn(stores, dataDir, { DATABASE_URL: server.url });
    // Connected before the database turns read-only, so it can turn it back.
    operator = new pg.Client({ connectionString: server.url });
    await operator.connect();
  });

  afterAll(async () => {
    await operator?.end();
    await ctx?.close();
    await stores?.close();
    server?.destroy();
  });

  /** New sessions of the database start read-only (or writable again); the app's sessions are ended, so its pool opens new ones. */
  async function setReadOnly(readOnly: boolean): Promise<void> {
    const { rows } = await operator.query<{ name: string }>('SELECT current_database() AS name');
    await operator.query(`ALTER DATABASE ${pg.escapeIdentifier(rows[0]!.name)} SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
    await operator.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  }

  it('answers a write 503 unavailable and fails /healthz, then takes writes again once the server does', async () => {
    const advertiser = await createAdvertiser(ctx);
    const headers = { 'x-api-key': advertiser.key };
    const payload = { name: 'Campaign', brand_name: 'Acme', user_id: advertiser.user.id };
    const create = () => ctx.app.inject({ method: 'POST', url: '/v1/advertiser/campaigns', headers, payload });
    const list = () => ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers });
    const health = () => ctx.app.inject({ method: 'GET', url: '/healthz' });
    await setReadOnly(true);
    // Reads go on once the pool has replaced the ended sessions with read-only ones.
    await eventually(async () => ((await list()).statusCode === 200 ? true : undefined), 'a read from the read-only server', 15_000);
    const refused = await create();
    expect([refused.statusCode, refused.headers['retry-after'], refused.json().error.code]).toEqual([503, '5', 'unavailable']);
    const unhealthy = await health();
    expect([unhealthy.statusCode, unhealthy.json().checks.postgres]).toEqual([503, 'failing']);
    expect((await list()).json().data).toEqual([]);

    await setReadOnly(false);
    await eventually(async () => ((await create()).statusCode === 201 ? true : undefined), 'a write once the server takes writes', 15_000);
    await eventually(async () => ((await health()).json().checks.postgres === 'ok' ? true : undefined), 'postgres ok in /healthz', 15_000);
  });

  it('refuses the billing lock there: a read-only server grants advisory locks of its own, not the primary\'s', async () => {
    const headers = { 'x-api-key': (await createAdvertiser(ctx)).key };
    await setReadOnly(true);
    try {
      await eventually(async () => ((await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns', headers })).statusCode === 200 ? true : undefined), 'a read from the read-only server', 15_000);
      let ran = false;
      const taken = billingLock(stores.db)(async () => {
        ran = true;
      });
      await expect(taken).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(ran).toBe(false);
    } finally {
      await setReadOnly(false);
    }
  });
});

/**
 * Embedded PGlite whose DATA_DIR is a real tmpfs filled to the last byte: Postgres answers 53100
 * disk_full ("could not extend file"), which is a store that cannot take the write now, 503 with
 * Retry-After like an outage, not a 500; writes succeed again once there is room.
 */
describe.runIf(canMount)('embedded PGlite on a full disk (a real tmpfs)', () => {
  let unmount: () => void;
  let db: Postgres | undefined;
  let ctx: TestContext | undefined;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(inject('testRoot'), 'full-disk-'));
    unmount = mountTmpfs(dataDir, 160 * 1_048_576);
    cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
    db = await openPostgres({ dataDir });
    await migratePostgres(db);
    const { stores } = await testStores();
    ctx = await startTestAppOn({ ...stores, db }, dataDir);
  });

  afterAll(async () => {
    await ctx?.close();
    await db?.close();
    unmount?.();
  });

  it('answers a write 503 unavailable with Retry-After, and 201 again once there is room', async () => {
    const create = () => ctx!.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: `org-${randomUUID()}` } });
    expect((await create()).statusCode).toBe(201);
    const freeSpace = fillDisk(ctx!.dataDir);
    // The table's last page still takes a few rows; the write that needs a new one meets the full disk.
    let refused;
    for (let attempt = 0; attempt < 5000 && !refused; attempt++) {
      const response = await create();
      if (response.statusCode !== 201) refused = response;
    }
    expect(refused?.statusCode).toBe(503);
    expect(refused?.headers['retry-after']).toBe('5');
    expect(refused?.json().error.code).toBe('unavailable');
    freeSpace();
    await eventually(async () => ((await create()).statusCode === 201 ? true : undefined), 'a write to succeed with room again');
  });
});
