import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCreateKeyTable } from '../../src/admin/operatorCreateKeys.js';
import { pruneCreateKeys } from '../../src/http/createKeyTable.js';
import { eventually } from '../helpers/eventually.js';
import { holdLock } from '../helpers/heldLock.js';
import { startAppOnPostgresServer, type AppOnPostgresServer } from '../helpers/appOnPostgresServer.js';
import { createOrganization, createPublisher } from '../helpers/factories.js';
import { unavailableReason } from '../helpers/postgresServer.js';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';

/**
 * The operators' creates with an Idempotency-Key (docs/operating.md "Creating once"): a resend
 * answers the first answer, secrets included, and creates nothing, on the suite's Postgres (embedded,
 * or the server when ADSVC_TEST_DATABASE_URL is set) and, for a resend while the first still runs,
 * on a server. The kept answers hold no readable secret.
 */

function post(ctx: TestContext, url: string, payload: object | undefined, key?: string): Promise<LightMyRequestResponse> {
  return ctx.admin({ method: 'POST', url, ...(payload === undefined ? {} : { payload }), headers: key === undefined ? {} : { 'idempotency-key': key } });
}

async function count(ctx: TestContext, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await ctx.stores.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return rows[0]!.n;
}

function expectReplayOf(resend: LightMyRequestResponse, first: LightMyRequestResponse) {
  expect(first.statusCode, first.body).toBe(201);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(resend.statusCode, resend.body).toBe(201);
  expect(resend.headers['idempotent-replayed']).toBe('true');
  expect(resend.body).toBe(first.body);
}

describe('admin creates with an Idempotency-Key', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await startTestApp();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('answers a resent POST organizations its first answer and keeps one organization', async () => {
    const body = { name: `once-${randomUUID()}` };
    const key = randomUUID();
    const first = await post(ctx, '/v1/admin/organizations', body, key);
    expectReplayOf(await post(ctx, '/v1/admin/organizations', body, key), first);
    expect(await count(ctx, 'organizations WHERE name = $1', [body.name])).toBe(1);
    // Without a key, the same body is another organization.
    expect((await post(ctx, '/v1/admin/organizations', body)).statusCode).toBe(201);
    expect(await count(ctx, 'organizations WHERE name = $1', [body.name])).toBe(2);
  });

  it('answers a resent API key create its key again, which works, and keeps one key', async () => {
    const organization = await createOrganization(ctx);
    const key = randomUUID();
    const create = () => post(ctx, `/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns'] }, key);
    const first = await create();
    expectReplayOf(await create(), first);
    expect(await count(ctx, 'api_keys WHERE organization_id = $1', [organization.id])).toBe(1);
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/me', headers: { 'x-api-key': first.json().data.key } });
    expect(me.statusCode, me.body).toBe(200);
  });

  it('keeps one publisher, one token and one placement per key', async () => {
    const key = randomUUID();
    const publisher = () => post(ctx, '/v1/admin/publishers', { name: `pub-${key}` }, key);
    const made = await publisher();
    expectReplayOf(await publisher(), made);
    const publisherId = made.json().data.id as string;
    expect(await count(ctx, 'publishers WHERE name = $1', [`pub-${key}`])).toBe(1);

    const token = () => post(ctx, `/v1/admin/publishers/${publisherId}/tokens`, undefined, `${key}-token`);
    const issued = await token();
    expectReplayOf(await token(), issued);
    // The publisher's first token and this one.
    expect(await count(ctx, 'publisher_tokens WHERE publisher_id = $1', [publisherId])).toBe(2);
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/publisher/me', headers: { authorization: `Bearer ${issued.json().data.token}` } });
    expect(me.statusCode, me.body).toBe(200);

    // Without a key a placement's resend is 409 (its id exists); with one, the first answer.
    const placement = () => post(ctx, `/v1/admin/publishers/${publisherId}/placements`, { id: `pl-${key}` }, `${key}-placement`);
    const created = await placement();
    expectReplayOf(await placement(), created);
    expect(await count(ctx, 'placements WHERE publisher_id = $1', [publisherId])).toBe(1);
  });

  it('refuses the key with another body or on another route (422 on Idempotency-Key) and creates nothing', async () => {
    const key = randomUUID();
    const name = `first-${key}`;
    expect((await post(ctx, '/v1/admin/organizations', { name }, key)).statusCode).toBe(201);
    const other = await post(ctx, '/v1/admin/organizations', { name: `second-${key}` }, key);
    expect(other.statusCode, other.body).toBe(422);
    expect(other.json().error.details).toEqual([{ path: 'Idempotency-Key', message: 'already used with another body' }]);
    const publisher = await post(ctx, '/v1/admin/publishers', { name }, key);
    expect(publisher.statusCode, publisher.body).toBe(422);
    expect(await count(ctx, 'organizations WHERE name = ANY($1)', [[name, `second-${key}`]])).toBe(1);
    expect(await count(ctx, 'publishers WHERE name = $1', [name])).toBe(0);
  });

  it('keeps nothing for a refused create: the corrected request runs under the same key', async () => {
    const publisher = await createPublisher(ctx);
    const other = await createPublisher(ctx);
    const key = randomUUID();
    const missing = await post(ctx, `/v1/admin/publishers/${randomUUID()}/tokens`, undefined, key);
    expect(missing.statusCode, missing.body).toBe(404);
    const token = await post(ctx, `/v1/admin/publishers/${publisher.id}/tokens`, undefined, key);
    expect(token.statusCode, token.body).toBe(201);
    expect(token.headers['idempotent-replayed']).toBeUndefined();

    // A placement id another publisher holds: 409, nothing kept; another id under the key creates.
    const placementKey = randomUUID();
    const taken = `pl-${placementKey}`;
    expect((await post(ctx, `/v1/admin/publishers/${other.id}/placements`, { id: taken })).statusCode).toBe(201);
    const refused = await post(ctx, `/v1/admin/publishers/${publisher.id}/placements`, { id: taken }, placementKey);
    expect(refused.statusCode, refused.body).toBe(409);
    const created = await post(ctx, `/v1/admin/publishers/${publisher.id}/placements`, { id: `${taken}-own` }, placementKey);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps no readable secret: the key is stored as its hash and the answer sealed', async () => {
    const organization = await createOrganization(ctx);
    const key = `script-${randomUUID()}`;
    const created = await post(ctx, `/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['reporting'] }, key);
    expect(created.statusCode, created.body).toBe(201);
    const secret = created.json().data.key as string;
    const { rows } = await ctx.stores.db.query<{ row: string }>(`SELECT t::text AS row FROM admin_idempotent_creates t`);
    expect(rows.length).toBeGreaterThan(0);
    for (const { row } of rows) {
      expect(row).not.toContain(secret);
      expect(row).not.toContain(Buffer.from(secret).toString('hex'));
      expect(row).not.toContain(Buffer.from(key).toString('hex'));
    }
  });

  it('answers 409 and creates nothing when the answer was kept under another admin token', async () => {
    const organization = await createOrganization(ctx);
    const key = randomUUID();
    const create = (on: TestContext) => post(on, `/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns'] }, key);
    expect((await create(ctx)).statusCode).toBe(201);
    const rotated = await startAnotherInstance(ctx, { ADMIN_TOKEN: 'test-admin-token-rotated-0123456789' });
    try {
      const resend = await create(rotated);
      expect(resend.statusCode, resend.body).toBe(409);
      expect(resend.json().error.code).toBe('conflict');
    } finally {
      await rotated.close();
    }
    expect(await count(ctx, 'api_keys WHERE organization_id = $1', [organization.id])).toBe(1);
  });

  it('creates once when requests with the same key arrive together', async () => {
    const key = randomUUID();
    const name = `together-${key}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(ctx, '/v1/admin/organizations', { name }, key)));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await count(ctx, 'organizations WHERE name = $1', [name])).toBe(1);
  });

  it('frees a key after 24 hours and prunes the keys older than that', async () => {
    const [old, fresh] = [randomUUID(), randomUUID()];
    for (const key of [old, fresh]) expect((await post(ctx, '/v1/admin/organizations', { name: key }, key)).statusCode).toBe(201);
    const age = (key: string) =>
      ctx.stores.db.query(`UPDATE admin_idempotent_creates SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key_sha256 = sha256($1::bytea)`, [
        Buffer.from(key),
      ]);
    await age(old);
    const later = await post(ctx, '/v1/admin/organizations', { name: old }, old);
    expect(later.statusCode, later.body).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(ctx, 'organizations WHERE name = $1', [old])).toBe(2);

    await age(old);
    await pruneCreateKeys(ctx.stores.db, operatorCreateKeyTable);
    const kept = (key: string) => count(ctx, 'admin_idempotent_creates WHERE idempotency_key_sha256 = sha256($1::bytea)', [Buffer.from(key)]);
    expect([await kept(old), await kept(fresh)]).toEqual([0, 1]);
  });

  it('prunes the expired keys soon after an instance starts listening, not an hour later', async () => {
    // The sealed answers (secrets) must not outlive 24 h on instances restarted more often than hourly.
    const key = randomUUID();
    expect((await post(ctx, '/v1/admin/organizations', { name: key }, key)).statusCode).toBe(201);
    await ctx.stores.db.query(`UPDATE admin_idempotent_creates SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key_sha256 = sha256($1::bytea)`, [
      Buffer.from(key),
    ]);
    const started = await startAnotherInstance(ctx);
    try {
      await started.app.listen({ port: 0, host: '127.0.0.1' });
      await eventually(async () => {
        const kept = await count(ctx, 'admin_idempotent_creates WHERE idempotency_key_sha256 = sha256($1::bytea)', [Buffer.from(key)]);
        return kept === 0 ? true : undefined;
      }, 'the expired key pruned after the start', 60_000);
    } finally {
      await started.close();
    }
  }, 120_000);
});

if (unavailableReason) console.warn(unavailableReason);

/**
 * On a PostgreSQL server two requests of a key run at once on two connections: the resend waits for
 * the first one's uncommitted key and answers its answer. The first is held (its organization INSERT
 * waits for a lock the test holds) so the resend arrives while it runs, for sure.
 */
describe.skipIf(unavailableReason !== undefined)('an admin resend while the first request runs, on a PostgreSQL server', () => {
  let onServer: AppOnPostgresServer | undefined;
  let ctx: TestContext;

  beforeAll(async () => {
    onServer = await startAppOnPostgresServer('idempotent-admin-');
    ctx = onServer.ctx;
  });

  afterAll(async () => {
    await onServer?.close();
  });

  it('waits for the first request and answers its answer, one API key', async () => {
    const organization = await createOrganization(ctx);
    const key = randomUUID();
    const held = await holdLock(onServer!.server.url, 'LOCK TABLE api_keys IN SHARE MODE');
    try {
      const create = () => post(ctx, `/v1/admin/organizations/${organization.id}/api-keys`, { permissions: ['campaigns'] }, key);
      const first = create();
      await held.waiting(1);
      const resend = create();
      await held.waiting(2);
      await held.release();
      expectReplayOf(await resend, await first);
      expect(await count(ctx, 'api_keys WHERE organization_id = $1', [organization.id])).toBe(1);
    } finally {
      await held.close();
    }
  });
});
