import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneCreateKeys } from '../../src/http/createKeyTable.js';
import { organizationCreateKeyTable } from '../../src/management/organizationCreateKeys.js';
import { holdLock } from '../helpers/heldLock.js';
import { startAppOnPostgresServer, type AppOnPostgresServer } from '../helpers/appOnPostgresServer.js';
import { eventually } from '../helpers/eventually.js';
import { createAdvertiser } from '../helpers/factories.js';
import { composeBody, composeCampaign, validCreative } from '../helpers/managementFactories.js';
import { unavailableReason } from '../helpers/postgresServer.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';

/**
 * The advertiser's creates with an Idempotency-Key (docs/management.md "Creating once"): a resend
 * answers the first answer and creates nothing, on the suite's Postgres (embedded, or the server
 * when ADSVC_TEST_DATABASE_URL is set) and, for a resend while the first still runs, on a server.
 */

type Advertiser = Awaited<ReturnType<typeof createAdvertiser>>;

function post(ctx: TestContext, advertiser: Advertiser, url: string, payload: object, key?: string): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ method: 'POST', url, payload, headers: { 'x-api-key': advertiser.key, ...(key === undefined ? {} : { 'idempotency-key': key }) } });
}

async function campaignCount(ctx: TestContext, advertiser: Advertiser): Promise<number> {
  const { rows } = await ctx.stores.db.query<{ n: number }>('SELECT count(*)::int AS n FROM campaigns WHERE user_id = $1', [advertiser.user.id]);
  return rows[0]!.n;
}

function expectReplayOf(resend: LightMyRequestResponse, first: LightMyRequestResponse) {
  expect(first.statusCode, first.body).toBe(201);
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect(resend.statusCode, resend.body).toBe(201);
  expect(resend.headers['idempotent-replayed']).toBe('true');
  expect(resend.body).toBe(first.body);
}

describe('creates with an Idempotency-Key', () => {
  let ctx: TestContext;

  beforeAll(async () => {
    ctx = await startTestApp();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('answers a resent POST campaigns its first answer and keeps one campaign', async () => {
    const advertiser = await createAdvertiser(ctx);
    const body = { name: 'Once', brand_name: 'Acme', user_id: advertiser.user.id };
    const key = randomUUID();
    const first = await post(ctx, advertiser, '/v1/advertiser/campaigns', body, key);
    const resend = await post(ctx, advertiser, '/v1/advertiser/campaigns', body, key);
    expectReplayOf(resend, first);
    expect(await campaignCount(ctx, advertiser)).toBe(1);
    // Without a key, the same body is another campaign.
    expect((await post(ctx, advertiser, '/v1/advertiser/campaigns', body)).statusCode).toBe(201);
    expect(await campaignCount(ctx, advertiser)).toBe(2);
  });

  it('refuses the key with another body (422 on Idempotency-Key) and creates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const first = await post(ctx, advertiser, '/v1/advertiser/campaigns', { name: 'First', brand_name: 'Acme', user_id: advertiser.user.id }, key);
    expect(first.statusCode, first.body).toBe(201);
    const other = await post(ctx, advertiser, '/v1/advertiser/campaigns', { name: 'Second', brand_name: 'Acme', user_id: advertiser.user.id }, key);
    expect(other.statusCode, other.body).toBe(422);
    expect(other.json().error.code).toBe('validation_error');
    expect(other.json().error.details).toEqual([{ path: 'Idempotency-Key', message: 'already used with another body' }]);
    // Another route under the key is another request too.
    const compose = await post(ctx, advertiser, '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id), key);
    expect(compose.statusCode, compose.body).toBe(422);
    expect(await campaignCount(ctx, advertiser)).toBe(1);
  });

  it('keeps one object per key for compose, line items, creatives and duplicate', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const compose = () => post(ctx, advertiser, '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id), key);
    const composed = await compose();
    expectReplayOf(await compose(), composed);
    const campaignId = composed.json().data.campaign.id as string;

    const lineItem = () => post(ctx, advertiser, `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Second line' }, `${key}-li`);
    const added = await lineItem();
    expectReplayOf(await lineItem(), added);
    const lineItemId = added.json().data.id as string;
    const lineItems = await ctx.stores.db.query('SELECT id FROM line_items WHERE campaign_id = $1', [campaignId]);
    expect(lineItems.rows).toHaveLength(2);

    const creatives = () => post(ctx, advertiser, `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [validCreative] }, `${key}-cr`);
    const attached = await creatives();
    expectReplayOf(await creatives(), attached);
    const stored = await ctx.stores.db.query('SELECT id FROM creatives WHERE line_item_id = $1', [lineItemId]);
    expect(stored.rows).toHaveLength(1);

    const duplicate = () => post(ctx, advertiser, `/v1/advertiser/campaigns/${campaignId}/duplicate`, {}, `${key}-dup`);
    const copied = await duplicate();
    expectReplayOf(await duplicate(), copied);
    expect(await campaignCount(ctx, advertiser)).toBe(2);
  });

  it('creates once when requests with the same key arrive together', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(ctx, advertiser, '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id), key)));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(201);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await campaignCount(ctx, advertiser)).toBe(1);
  });

  it('keeps nothing for a refused create: the corrected request runs under the same key', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const missing = await post(ctx, advertiser, `/v1/advertiser/campaigns/${randomUUID()}/line-items`, { title: 'Nowhere' }, key);
    expect(missing.statusCode, missing.body).toBe(404);
    const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const added = await post(ctx, advertiser, `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Somewhere' }, key);
    expect(added.statusCode, added.body).toBe(201);
    expect(added.headers['idempotent-replayed']).toBeUndefined();
  });

  it('scopes keys to the organization, refuses a malformed key, and frees a key after 24 hours', async () => {
    const one = await createAdvertiser(ctx);
    const two = await createAdvertiser(ctx);
    const key = randomUUID();
    const body = (advertiser: Advertiser) => ({ name: 'Scoped', brand_name: 'Acme', user_id: advertiser.user.id });
    expect((await post(ctx, one, '/v1/advertiser/campaigns', body(one), key)).statusCode).toBe(201);
    const theirs = await post(ctx, two, '/v1/advertiser/campaigns', body(two), key);
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();

    const malformed = await post(ctx, one, '/v1/advertiser/campaigns', body(one), 'has spaces');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].path).toBe('Idempotency-Key');
    expect(await campaignCount(ctx, one)).toBe(1);

    await ctx.stores.db.query(`UPDATE idempotent_creates SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key = $1`, [key]);
    const later = await post(ctx, one, '/v1/advertiser/campaigns', body(one), key);
    expect(later.statusCode, later.body).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await campaignCount(ctx, one)).toBe(2);
  });

  it('prunes the keys older than 24 hours and keeps the others', async () => {
    const advertiser = await createAdvertiser(ctx);
    const [old, fresh] = [randomUUID(), randomUUID()];
    for (const key of [old, fresh]) {
      expect((await post(ctx, advertiser, '/v1/advertiser/campaigns', { name: key, brand_name: 'Acme', user_id: advertiser.user.id }, key)).statusCode).toBe(201);
    }
    await ctx.stores.db.query(`UPDATE idempotent_creates SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key = $1`, [old]);
    await pruneCreateKeys(ctx.stores.db, organizationCreateKeyTable);
    const { rows } = await ctx.stores.db.query<{ idempotency_key: string }>('SELECT idempotency_key FROM idempotent_creates WHERE idempotency_key = ANY($1)', [[old, fresh]]);
    expect(rows.map((row) => row.idempotency_key)).toEqual([fresh]);
  });

  it('prunes the expired keys soon after an instance starts listening, not an hour later', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    expect((await post(ctx, advertiser, '/v1/advertiser/campaigns', { name: key, brand_name: 'Acme', user_id: advertiser.user.id }, key)).statusCode).toBe(201);
    await ctx.stores.db.query(`UPDATE idempotent_creates SET created_at = now() - interval '24 hours 1 second' WHERE idempotency_key = $1`, [key]);
    await ctx.close();
    ctx = await startTestApp();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    await eventually(async () => {
      const { rows } = await ctx.stores.db.query('SELECT 1 FROM idempotent_creates WHERE idempotency_key = $1', [key]);
      return rows.length === 0 ? true : undefined;
    }, 'the expired key pruned after the start', 60_000);
  });

  it('answers the first answer after a restart', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const compose = (app: TestContext) => post(app, advertiser, '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id), key);
    const first = await compose(ctx);
    await ctx.close();
    ctx = await startTestApp();
    expectReplayOf(await compose(ctx), first);
    expect(await campaignCount(ctx, advertiser)).toBe(1);
  });
});

if (unavailableReason) console.warn(unavailableReason);

/**
 * On a PostgreSQL server two requests of a key run at once on two connections: the resend waits for
 * the first one's uncommitted key and answers its answer. The first is held (its campaign INSERT
 * waits for a lock the test holds) so the resend arrives while it runs, for sure.
 */
describe.skipIf(unavailableReason !== undefined)('a resend while the first request runs, on a PostgreSQL server', () => {
  let onServer: AppOnPostgresServer | undefined;
  let ctx: TestContext;

  beforeAll(async () => {
    onServer = await startAppOnPostgresServer('idempotent-');
    ctx = onServer.ctx;
  });

  afterAll(async () => {
    await onServer?.close();
  });

  it('waits for the first request and answers its answer, one campaign', async () => {
    const advertiser = await createAdvertiser(ctx);
    const key = randomUUID();
    const held = await holdLock(onServer!.server.url, 'LOCK TABLE campaigns IN SHARE MODE');
    try {
      const compose = () => post(ctx, advertiser, '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id), key);
      const first = compose();
      await held.waiting(1);
      const resend = compose();
      await held.waiting(2);
      await held.release();
      expectReplayOf(await resend, await first);
      const { rows } = await ctx.stores.db.query('SELECT id FROM campaigns WHERE user_id = $1', [advertiser.user.id]);
      expect(rows).toHaveLength(1);
    } finally {
      await held.close();
    }
  });
});
