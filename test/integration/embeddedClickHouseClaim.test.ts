import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStores, type Stores } from '../../src/runtime.js';
import { ADVISORY_LOCKS } from '../../src/store/advisoryLock.js';
import { EmbeddedClickHouseClaim } from '../../src/store/embeddedClickHouseClaim.js';
import { CLICK_PATH } from '../../src/tracking/trackingLinks.js';
import { eventually } from '../helpers/eventually.js';
import { startPostgresServer, unavailableReason, type PostgresServer } from '../helpers/postgresServer.js';
import { startTestAppOn, testConfig, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, eventsOf, fromAddress, serveClaims, signedToken, trackedLineItem, waitForEvents } from '../helpers/trackingFixtures.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

/**
 * The claim of an instance with embedded ClickHouse on a real PostgreSQL server, its connection
 * ended by the server (pg_terminate_backend) and the lock taken meanwhile by another session, as a
 * second instance would: while the other holds it no event is kept (503) and /healthz fails; once
 * the other lets go, the claim is taken again and events are kept again. And the server stopped:
 * nobody can take the lock then, so events are kept through the outage and the claim is taken back.
 */
if (unavailableReason) console.warn(unavailableReason);

const KEY = ADVISORY_LOCKS.embeddedClickHouse;

describe.skipIf(unavailableReason !== undefined)('an embedded ClickHouse claim whose connection drops', () => {
  let server: PostgresServer;
  let stores: Stores;
  let claim: EmbeddedClickHouseClaim;
  let ctx: TestContext;
  let other: pg.Client;

  beforeAll(async () => {
    server = await startPostgresServer();
    const dataDir = tempDirectory('claim-');
    const env = { DATABASE_URL: server.url, TRUST_PROXY: '127.0.0.1' };
    stores = await openStores(testConfig(dataDir, env));
    claim = (await EmbeddedClickHouseClaim.take(server.url))!;
    ctx = await startTestAppOn(stores, dataDir, env, { embeddedClickHouseClaim: claim });
    other = new pg.Client({ connectionString: server.url });
    await other.connect();
  });

  afterAll(async () => {
    await other?.end().catch(() => undefined);
    await ctx?.close();
    await claim?.close();
    await stores?.close();
    server?.destroy();
  });

  const health = async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    return { status: response.statusCode, claim: response.json().checks.clickhouse_claim as string };
  };

  it('refuses events with 503 and fails /healthz once a retake finds the lock held by another session, and recovers once it can take it again', async () => {
    const item = await trackedLineItem(ctx);
    const pixel = () => fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, ADDRESSES.comcastResidential);
    const click = () => fromAddress(ctx, `${CLICK_PATH}${signedToken(ctx, serveClaims(item, 'CPC', 1_000_000))}`, ADDRESSES.comcastResidential);
    expect(await health()).toEqual({ status: 200, claim: 'ok' });
    expect((await pixel()).statusCode).toBe(200);
    await waitForEvents(ctx, item.lineItemId, 1);

    // The server ends the claim's session; the other session waits for the lock and has it as soon
    // as that session is gone, and the claim's retake finds it held.
    const { rows } = await other.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted", [KEY]);
    expect(rows).toHaveLength(1);
    await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await other.query('SELECT pg_advisory_lock($1)', [KEY]);
    await eventually(async () => (claim.keepsEvents() ? undefined : true), 'the claim to find the lock held elsewhere', 15_000);

    expect(await health()).toEqual({ status: 503, claim: 'failing' });
    const refusedPixel = await pixel();
    expect(refusedPixel.statusCode).toBe(503);
    expect(refusedPixel.headers['retry-after']).toBe('5');
    expect(refusedPixel.json().error.code).toBe('unavailable');
    expect((await click()).statusCode).toBe(503);
    // Still refused after a retake that found the lock held.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(claim.keepsEvents()).toBe(false);
    expect((await pixel()).statusCode).toBe(503);
    expect(await eventsOf(ctx, item.lineItemId)).toHaveLength(1);

    await other.query('SELECT pg_advisory_unlock($1)', [KEY]);
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 'the claim to be taken again', 15_000, 200);
    expect(await health()).toEqual({ status: 200, claim: 'ok' });
    expect((await pixel()).statusCode).toBe(200);
    expect((await click()).statusCode).toBe(302);
    await waitForEvents(ctx, item.lineItemId, 3);
    // Held again: another session cannot take it.
    expect((await other.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [KEY])).rows[0]!.held).toBe(false);
  });

  it('keeps events through a Postgres outage (nobody can take the lock then), and holds the lock again once the server is back', async () => {
    const item = await trackedLineItem(ctx);
    const pixel = () => fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, ADDRESSES.comcastResidential);
    await other.end();
    server.stop();
    // The immediate retake and the one 5 s later both find the server gone.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(claim.keepsEvents()).toBe(true);
    const during = await pixel();
    expect(during.statusCode).toBe(200);
    expect((await health()).claim).toBe('ok');

    server.start();
    await waitForEvents(ctx, item.lineItemId, 1, 20_000);
    other = new pg.Client({ connectionString: server.url });
    await other.connect();
    await eventually(
      async () => ((await other.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted", [KEY])).rowCount === 1 ? true : undefined),
      'the claim taken again once the server is back',
      15_000,
      200,
    );
    expect((await pixel()).statusCode).toBe(200);
    await waitForEvents(ctx, item.lineItemId, 2);
  });

  it('keeps refusing events when, after a retake found the lock held by another session, Postgres cannot be reached: out of reach says nothing about who holds it', async () => {
    const item = await trackedLineItem(ctx);
    const pixel = () => fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, ADDRESSES.comcastResidential);
    const { rows } = await other.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted", [KEY]);
    await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await other.query('SELECT pg_advisory_lock($1)', [KEY]);
    await eventually(async () => (claim.keepsEvents() ? undefined : true), 'the claim to find the lock held elsewhere', 15_000);

    // The server stops with the other session still holding the lock (ended with it, not before, so
    // no retake can take the lock between the two).
    other.on('error', () => undefined);
    server.stop();
    // The next retake, 5 s later, finds the server gone.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(claim.keepsEvents()).toBe(false);
    expect((await pixel()).statusCode).toBe(503);
    expect((await health()).claim).toBe('failing');

    server.start();
    other = new pg.Client({ connectionString: server.url });
    await other.connect();
    await eventually(async () => (claim.keepsEvents() ? true : undefined), 'the claim taken again once the server is back', 15_000, 200);
    expect((await pixel()).statusCode).toBe(200);
    await waitForEvents(ctx, item.lineItemId, 1, 20_000);
  });

});

describe.skipIf(unavailableReason !== undefined)('an embedded ClickHouse claim lost before it has a logger', () => {
  let server: PostgresServer;
  let claim: EmbeddedClickHouseClaim;
  let other: pg.Client;

  beforeAll(async () => {
    server = await startPostgresServer();
    claim = (await EmbeddedClickHouseClaim.take(server.url))!;
    other = new pg.Client({ connectionString: server.url });
    await other.connect();
  });

  afterAll(async () => {
    await other?.end().catch(() => undefined);
    await claim?.close();
    server?.destroy();
  });

  it('writes what happened before (while server.ts builds the app) to the log it is given, with when, and logs at once from then', async () => {
    const { rows } = await other.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted", [KEY]);
    await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await other.query('SELECT pg_advisory_lock($1)', [KEY]);
    await eventually(async () => (claim.keepsEvents() ? undefined : true), 'the claim to find the lock held elsewhere', 15_000);

    const lines: { level: number; msg: string; happened_at?: string }[] = [];
    const loggedAt = Date.now();
    claim.logTo(pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }));
    expect(lines.map(({ level, msg }) => [level, msg.split(';')[0]])).toEqual([
      [40, 'lost the Postgres connection that holds the embedded ClickHouse claim'],
      [50, 'another instance with embedded ClickHouse now runs on this Postgres database'],
    ]);
    for (const { happened_at } of lines) expect(Date.parse(happened_at!)).toBeLessThanOrEqual(loggedAt);

    await other.query('SELECT pg_advisory_unlock($1)', [KEY]);
    await eventually(async () => lines[2], 'the claim taken again', 15_000, 200);
    expect(claim.keepsEvents()).toBe(true);
    expect(lines[2]).toMatchObject({ level: 30, msg: 'took the embedded ClickHouse claim again; keeping events again' });
    expect(lines[2]!.happened_at).toBeUndefined();
  });
});
