import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { addUser, createAdvertiser, createOrganization } from '../helpers/factories.js';
import { asAdvertiser, composeBody, composeCampaign, createCampaign, validCreative } from '../helpers/managementFactories.js';
import { contractSchema } from '../helpers/contract.js';
import { inListOrder } from '../helpers/listOrder.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

const missingId = '00000000-0000-4000-8000-000000000000';
const matchesCampaignList = contractSchema('#/components/schemas/CampaignList');

async function countRows(table: 'campaigns' | 'line_items' | 'creatives', column: string, value: string) {
  const { rows } = await ctx.stores.db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM ${table} WHERE ${column} = $1`,
    [value],
  );
  return rows[0]!.count;
}

/** Every management route, with an id to use and a body that would be valid. */
function everyRoute(campaignId: string, lineItemId: string, userId: string) {
  return [
    { method: 'GET', url: '/v1/advertiser/campaigns', write: false },
    { method: 'POST', url: '/v1/advertiser/campaigns', write: true, payload: { name: 'n', brand_name: 'b', user_id: userId } },
    { method: 'POST', url: '/v1/advertiser/campaigns/validate', write: true, payload: composeBody(userId) },
    { method: 'POST', url: '/v1/advertiser/campaigns/compose', write: true, payload: composeBody(userId) },
    { method: 'GET', url: `/v1/advertiser/campaigns/${campaignId}`, write: false },
    { method: 'PATCH', url: `/v1/advertiser/campaigns/${campaignId}`, write: true, payload: { name: 'renamed' } },
    { method: 'DELETE', url: `/v1/advertiser/campaigns/${campaignId}`, write: true },
    { method: 'POST', url: `/v1/advertiser/campaigns/${campaignId}/duplicate`, write: true },
    { method: 'POST', url: `/v1/advertiser/campaigns/${campaignId}/activate`, write: true },
    { method: 'GET', url: `/v1/advertiser/campaigns/${campaignId}/line-items`, write: false },
    { method: 'POST', url: `/v1/advertiser/campaigns/${campaignId}/line-items`, write: true, payload: { title: 't' } },
    { method: 'GET', url: `/v1/advertiser/line-items/${lineItemId}`, write: false },
    { method: 'PATCH', url: `/v1/advertiser/line-items/${lineItemId}`, write: true, payload: { title: 'renamed' } },
    { method: 'PUT', url: `/v1/advertiser/line-items/${lineItemId}/budget`, write: true, payload: { daily: 5, currency: 'USD' } },
    { method: 'PUT', url: `/v1/advertiser/line-items/${lineItemId}/bids`, write: true, payload: { bid_type: 'cpc', bid_value: 1 } },
    { method: 'PUT', url: `/v1/advertiser/line-items/${lineItemId}/targeting`, write: true, payload: {} },
    { method: 'POST', url: `/v1/advertiser/line-items/${lineItemId}/creatives`, write: true, payload: { creatives: [validCreative] } },
  ] as const;
}

describe('management authentication', () => {
  it('answers 401 auth_missing on every route without x-api-key', async () => {
    for (const route of everyRoute(missingId, missingId, missingId)) {
      const response = await ctx.app.inject({ method: route.method, url: route.url, payload: 'payload' in route ? route.payload : undefined });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(response.json().error.code).toBe('auth_missing');
    }
  });

  it('answers 401 auth_invalid for an unknown key', async () => {
    const response = await asAdvertiser(ctx, 'ak_not-a-key')('GET', '/v1/advertiser/campaigns');
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('auth_invalid');
  });

  it('answers 401 auth_invalid for a revoked key', async () => {
    const advertiser = await createAdvertiser(ctx);
    await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${advertiser.apiKey.id}` });
    const response = await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/campaigns');
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('auth_invalid');
  });

  it('logs no catalog change for a new campaign (it has no line items to serve), and logs its updates', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id, { name: 'quiet' });
    const changes = async () =>
      (await ctx.stores.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM catalog_changes WHERE kind = 'campaign' AND entity_id = $1`, [campaign.id])).rows[0]!.n;
    expect(await changes()).toBe(0);
    const renamed = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { name: 'renamed' });
    expect(renamed.statusCode).toBe(200);
    expect(await changes()).toBeGreaterThan(0);
  });

  it('answers 401 auth_invalid at once for a key revoked after it was used', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    expect((await api('GET', '/v1/advertiser/campaigns')).statusCode).toBe(200);
    expect((await api('GET', '/v1/advertiser/campaigns')).statusCode).toBe(200);
    await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${advertiser.apiKey.id}` });
    const response = await api('GET', '/v1/advertiser/campaigns');
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('auth_invalid');
  });

  it('sees a key changed in the database by any writer at once: revoked, or its permissions changed', async () => {
    const revoked = await createAdvertiser(ctx);
    const narrowed = await createAdvertiser(ctx);
    for (const advertiser of [revoked, narrowed]) {
      expect((await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/campaigns')).statusCode).toBe(200);
    }
    await ctx.stores.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.apiKey.id]);
    expect((await asAdvertiser(ctx, revoked.key)('GET', '/v1/advertiser/campaigns')).statusCode).toBe(401);
    await ctx.stores.db.query(`UPDATE api_keys SET permissions = '{reporting}' WHERE id = $1`, [narrowed.apiKey.id]);
    const write = await asAdvertiser(ctx, narrowed.key)('POST', '/v1/advertiser/campaigns', {
      name: 'x',
      brand_name: 'y',
      user_id: narrowed.user.id,
    });
    expect(write.statusCode).toBe(403);
  });

  it('answers 403 forbidden on every write route for a key with only the reporting permission, and changes nothing', async () => {
    const owner = await createAdvertiser(ctx, ['campaigns']);
    const { campaignId, lineItemId } = await composeCampaign(ctx, owner.key, owner.user.id);
    const reportingKey = (await ctx.admin({
      method: 'POST',
      url: `/v1/admin/organizations/${owner.organization.id}/api-keys`,
      payload: { permissions: ['reporting'] },
    })).json().data.key as string;
    for (const route of everyRoute(campaignId, lineItemId, owner.user.id).filter((route) => route.write)) {
      const response = await asAdvertiser(ctx, reportingKey)(route.method, route.url, 'payload' in route ? route.payload : undefined);
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    }
    const lineItem = (await asAdvertiser(ctx, owner.key)('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem).toMatchObject({ title: 'Developers, US', status: 'draft', creatives: [] });
    expect(await countRows('campaigns', 'user_id', owner.user.id)).toBe(1);
  });

  it('lets a key with only reporting, or only campaigns, use every read route', async () => {
    const owner = await createAdvertiser(ctx, ['campaigns']);
    const { campaignId, lineItemId } = await composeCampaign(ctx, owner.key, owner.user.id);
    const reportingKey = (await ctx.admin({
      method: 'POST',
      url: `/v1/admin/organizations/${owner.organization.id}/api-keys`,
      payload: { permissions: ['reporting'] },
    })).json().data.key as string;
    for (const key of [reportingKey, owner.key]) {
      for (const route of everyRoute(campaignId, lineItemId, owner.user.id).filter((route) => !route.write)) {
        const response = await asAdvertiser(ctx, key)(route.method, route.url);
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(200);
      }
    }
  });
});

describe('tenancy', () => {
  it("answers 404 not_found for another organization's campaign and line item on every route, and changes nothing", async () => {
    const owner = await createAdvertiser(ctx);
    const stranger = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, owner.key, owner.user.id);
    const routes = everyRoute(campaignId, lineItemId, stranger.user.id).filter((route) => route.url.includes(campaignId) || route.url.includes(lineItemId));
    expect(routes).toHaveLength(13);
    for (const route of routes) {
      const response = await asAdvertiser(ctx, stranger.key)(route.method, route.url, 'payload' in route ? route.payload : undefined);
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
    const campaign = (await asAdvertiser(ctx, owner.key)('GET', `/v1/advertiser/campaigns/${campaignId}`)).json().data;
    expect(campaign).toMatchObject({ name: 'Spring launch', status: 'paused' });
    const lineItem = (await asAdvertiser(ctx, owner.key)('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem).toMatchObject({ title: 'Developers, US', budget: { daily: 50, currency: 'USD' }, targeting: {}, creatives: [] });
  });

  it("answers the same 404 for another organization's campaign as for a missing one", async () => {
    const owner = await createAdvertiser(ctx);
    const stranger = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, owner.key, owner.user.id);
    const theirs = await asAdvertiser(ctx, stranger.key)('GET', `/v1/advertiser/campaigns/${campaign.id}`);
    const missing = await asAdvertiser(ctx, stranger.key)('GET', `/v1/advertiser/campaigns/${randomUUID()}`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).toBe(missing.body);
  });

  it("lists only the campaigns of the key's organization", async () => {
    const owner = await createAdvertiser(ctx);
    const other = await createAdvertiser(ctx);
    const mine = await createCampaign(ctx, owner.key, owner.user.id);
    await createCampaign(ctx, other.key, other.user.id);
    const list = (await asAdvertiser(ctx, owner.key)('GET', '/v1/advertiser/campaigns')).json();
    expect(list.data.map((campaign: { id: string }) => campaign.id)).toEqual([mine.id]);
  });

  it('shows campaigns of every member of the organization', async () => {
    const owner = await createAdvertiser(ctx);
    const colleague = await addUser(ctx, owner.organization.id);
    const first = await createCampaign(ctx, owner.key, owner.user.id);
    const second = await createCampaign(ctx, owner.key, colleague.id);
    const list = (await asAdvertiser(ctx, owner.key)('GET', '/v1/advertiser/campaigns')).json();
    expect(list.data.map((campaign: { id: string }) => campaign.id)).toEqual([first.id, second.id]);
  });

  it('answers 403 forbidden when creating, composing or validating with a user outside the organization, and writes nothing', async () => {
    const owner = await createAdvertiser(ctx);
    const outsider = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, owner.key);
    const create = await api('POST', '/v1/advertiser/campaigns', { name: 'n', brand_name: 'b', user_id: outsider.user.id });
    const compose = await api('POST', '/v1/advertiser/campaigns/compose', composeBody(outsider.user.id));
    const validate = await api('POST', '/v1/advertiser/campaigns/validate', composeBody(outsider.user.id));
    const unknownUser = await api('POST', '/v1/advertiser/campaigns', { name: 'n', brand_name: 'b', user_id: randomUUID() });
    for (const response of [create, compose, validate, unknownUser]) {
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    }
    expect(await countRows('campaigns', 'user_id', outsider.user.id)).toBe(0);
  });
});

describe('POST /v1/advertiser/campaigns', () => {
  it('creates a paused campaign and answers 201 with exactly the fields of the spec in data', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns', {
      name: 'Spring launch',
      brand_name: 'Acme',
      user_id: advertiser.user.id,
      objective: 'brand_awareness',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Spring launch',
        brand_name: 'Acme',
        user_id: advertiser.user.id,
        status: 'paused',
        objective: 'awareness',
        starts_at: null,
        ends_at: null,
        created_at: expect.any(String),
      },
    });
    expect(Number.isNaN(Date.parse(response.json().data.created_at))).toBe(false);
  });

  it('stores an objective left out as null', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    expect(campaign).toMatchObject({ objective: null, status: 'paused' });
  });

  it('maps status draft to paused, and refuses other statuses on create with 422', async () => {
    const advertiser = await createAdvertiser(ctx);
    expect((await createCampaign(ctx, advertiser.key, advertiser.user.id, { status: 'draft' })).status).toBe('paused');
    expect((await createCampaign(ctx, advertiser.key, advertiser.user.id, { status: 'paused' })).status).toBe('paused');
    for (const status of ['active', 'completed', 'running']) {
      const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns', {
        name: 'n',
        brand_name: 'b',
        user_id: advertiser.user.id,
        status,
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().error.details).toEqual([{ path: 'status', message: expect.any(String) }]);
    }
  });

  it('answers 422 validation_error listing every missing required field', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns', {});
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe('validation_error');
    expect(detailPaths(response).sort()).toEqual([
      'brand_name',
      'name',
      'user_id',
    ]);
  });

  it('answers 422 listing every constraint violation and every unknown field', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns', {
      name: '   ',
      brand_name: 'x'.repeat(201),
      user_id: 'not-a-uuid',
      objective: 'world_domination',
      org_id: advertiser.organization.id,
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'brand_name',
      'name',
      'objective',
      'org_id',
      'user_id',
    ]);
  });

  it('answers 400 bad_request on malformed JSON', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/advertiser/campaigns',
      headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_request');
  });
});

describe('value normalization', () => {
  const objectives = [
    ['awareness', 'awareness'],
    ['brand_awareness', 'awareness'],
    ['Brand_Awareness', 'awareness'],
    ['consideration', 'consideration'],
    ['traffic', 'traffic'],
    ['engagement', 'engagement'],
    ['conversions', 'conversions'],
  ] as const;
  const kpis = [
    ['impressions', 'CPM'],
    ['clicks', 'CPC'],
    ['conversions', 'CPA'],
    ['CPM', 'CPM'],
    ['CPC', 'CPC'],
    ['cpa', 'CPA'],
  ] as const;
  const bidTypes = [
    ['cpc', 'CPC'],
    ['cpm', 'tCPM'],
    ['cpa', 'CPA'],
    ['CPC', 'CPC'],
    ['tCPM', 'tCPM'],
    ['CPA', 'CPA'],
  ] as const;

  it.each(objectives)('stores objective %s as %s on campaigns and line items', async (sent, stored) => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      campaign: { objective: sent },
      line_item: { objective: sent },
    });
    const api = asAdvertiser(ctx, advertiser.key);
    expect((await api('GET', `/v1/advertiser/campaigns/${campaignId}`)).json().data.objective).toBe(stored);
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.objective).toBe(stored);
  });

  it.each(kpis)('stores primary_kpi %s as %s', async (sent, stored) => {
    const advertiser = await createAdvertiser(ctx);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, { line_item: { primary_kpi: sent } });
    const lineItem = (await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem.primary_kpi).toBe(stored);
  });

  it.each(bidTypes)('stores bid_type %s as %s', async (sent, stored) => {
    const advertiser = await createAdvertiser(ctx);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      line_item: { bids: { bid_type: sent, bid_value: 2 } },
    });
    const lineItem = (await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem.bids).toEqual({ bid_type: stored, bid_value: 2 });
  });

  it('answers 422 for values outside the allowed sets', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)(
      'POST',
      '/v1/advertiser/campaigns/compose',
      composeBody(advertiser.user.id, {
        campaign: { objective: 'sales' },
        line_item: { objective: 'reach', primary_kpi: 'views', bids: { bid_type: 'vcpm', bid_value: 1 } },
      }),
    );
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'campaign.objective',
      'line_item.bids.bid_type',
      'line_item.objective',
      'line_item.primary_kpi',
    ]);
  });
});

describe('POST /v1/advertiser/campaigns/validate', () => {
  it('answers 200 with the normalized campaign and line item, and writes nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)(
      'POST',
      '/v1/advertiser/campaigns/validate',
      composeBody(advertiser.user.id, { campaign: { status: 'draft' }, line_item: { budget: { daily: 10, currency: 'eur' } } }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        valid: true,
        campaign: {
          name: 'Spring launch',
          brand_name: 'Acme',
          user_id: advertiser.user.id,
          objective: 'awareness',
          status: 'paused',
          starts_at: null,
          ends_at: null,
        },
        line_item: {
          title: 'Developers, US',
          objective: 'traffic',
          primary_kpi: 'CPC',
          status: 'draft',
          budget: { daily: 10, currency: 'EUR', lifetime: null, pacing: 'even' },
          bids: { bid_type: 'CPC', bid_value: 1.25 },
          targeting: {},
          frequency_cap: null,
          creatives: [],
        },
      },
    });
    expect(await countRows('campaigns', 'user_id', advertiser.user.id)).toBe(0);
  });

  it('validates either part alone', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const lineItemOnly = await api('POST', '/v1/advertiser/campaigns/validate', { line_item: { title: 'Only me' } });
    expect(lineItemOnly.statusCode).toBe(200);
    expect(lineItemOnly.json().data).toMatchObject({ valid: true, campaign: null, line_item: { title: 'Only me' } });
    const campaignOnly = await api('POST', '/v1/advertiser/campaigns/validate', { campaign: composeBody(advertiser.user.id).campaign });
    expect(campaignOnly.json().data).toMatchObject({ valid: true, campaign: { name: 'Spring launch' }, line_item: null });
  });

  it('answers 422 with every offending field of both parts, with dotted paths', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns/validate', {
      campaign: { brand_name: 'Acme', user_id: advertiser.user.id },
      line_item: { title: 'x', budget: { daily: 0, currency: 'ZZZ' }, bids: { bid_type: 'cpc', bid_value: -1 } },
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'campaign.name',
      'line_item.bids.bid_value',
      'line_item.budget.currency',
      'line_item.budget.daily',
    ]);
  });

  it('answers 422 for an empty body', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns/validate', {});
    expect(response.statusCode).toBe(422);
  });
});

describe('POST /v1/advertiser/campaigns/compose', () => {
  it('creates a paused campaign and a draft line item and answers 201 with exactly the spec shape', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id));
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(response.json()).toEqual({
      data: {
        campaign: { id: expect.any(String), name: 'Spring launch', status: 'paused', starts_at: null, ends_at: null },
        line_item: { id: expect.any(String), campaign_id: data.campaign.id, title: 'Developers, US', status: 'draft' },
      },
    });
    const lineItem = (await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/line-items/${data.line_item.id}`)).json().data;
    expect(lineItem).toMatchObject({
      objective: 'traffic',
      primary_kpi: 'CPC',
      budget: { daily: 50, currency: 'USD' },
      bids: { bid_type: 'CPC', bid_value: 1.25 },
    });
  });

  it('answers 422 listing missing fields of both parts', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns/compose', {
      campaign: { name: 'x' },
      line_item: { budget: { daily: 5 } },
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'campaign.brand_name',
      'campaign.user_id',
      'line_item.budget.currency',
      'line_item.title',
    ]);
  });

  it('also takes targeting and creatives for the line item', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      line_item: { targeting: { keywords: { include: ['Laptop'] } }, creatives: [validCreative, { ...validCreative, title: 'Second' }] },
    });
    const lineItem = (await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem.targeting).toEqual({ keywords: { include: ['laptop'] } });
    expect(lineItem.creatives.map((creative: { title: string }) => creative.title)).toEqual([validCreative.title, 'Second']);
  });
});

/**
 * Makes the database itself fail inserts into `table` whose title is `marker`, for the length of
 * `run`: a real failure in the middle of a transaction, not a mock.
 */
async function withInsertFailure(table: 'line_items' | 'creatives', marker: string, run: () => Promise<void>) {
  const name = `fail_${randomUUID().replaceAll('-', '')}`;
  const db = ctx.stores.db;
  await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.title = '${marker}' THEN RAISE EXCEPTION 'forced failure'; END IF;
      RETURN NEW;
    END $$`);
  await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  try {
    await run();
  } finally {
    await db.query(`DROP TRIGGER ${name} ON ${table}`);
    await db.query(`DROP FUNCTION ${name}()`);
  }
}

describe('atomicity', () => {
  it('leaves nothing behind when the line item insert of compose fails after the campaign insert', async () => {
    const advertiser = await createAdvertiser(ctx);
    const marker = `boom-${randomUUID()}`;
    await withInsertFailure('line_items', marker, async () => {
      const response = await asAdvertiser(ctx, advertiser.key)(
        'POST',
        '/v1/advertiser/campaigns/compose',
        composeBody(advertiser.user.id, { line_item: { title: marker } }),
      );
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    });
    expect(await countRows('campaigns', 'user_id', advertiser.user.id)).toBe(0);
    expect(await countRows('line_items', 'title', marker)).toBe(0);
  });

  it('leaves nothing behind when duplicate fails at its last step (copying creatives)', async () => {
    const advertiser = await createAdvertiser(ctx);
    const marker = `boom-${randomUUID()}`;
    const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      line_item: { creatives: [{ ...validCreative, title: marker }] },
    });
    await withInsertFailure('creatives', marker, async () => {
      const response = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/campaigns/${campaignId}/duplicate`);
      expect(response.statusCode).toBe(500);
    });
    expect(await countRows('campaigns', 'user_id', advertiser.user.id)).toBe(1);
    const { rows } = await ctx.stores.db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM line_items li JOIN campaigns c ON c.id = li.campaign_id WHERE c.user_id = $1',
      [advertiser.user.id],
    );
    expect(rows[0]!.count).toBe(1);
    expect(await countRows('creatives', 'title', marker)).toBe(1);
  });
});

describe('GET /v1/advertiser/campaigns', () => {
  it('pages with limit and offset in creation order: total is the rows on the page, has_more when the page is full', async () => {
    const advertiser = await createAdvertiser(ctx);
    const made = [];
    for (let index = 0; index < 5; index += 1) {
      made.push((await createCampaign(ctx, advertiser.key, advertiser.user.id, { name: `c${index}` })).id);
    }
    const created = await inListOrder(ctx, 'campaigns', made);
    const api = asAdvertiser(ctx, advertiser.key);
    const seen: string[] = [];
    const pages = [];
    for (let offset = 0; offset <= 4; offset += 2) {
      const page = (await api('GET', `/v1/advertiser/campaigns?limit=2&offset=${offset}`)).json();
      pages.push(page.pagination);
      seen.push(...page.data.map((campaign: { id: string }) => campaign.id));
    }
    expect(seen).toEqual(created);
    expect(pages).toEqual([
      { limit: 2, offset: 0, total: 2, has_more: true, next_cursor: expect.any(String) },
      { limit: 2, offset: 2, total: 2, has_more: true, next_cursor: expect.any(String) },
      { limit: 2, offset: 4, total: 1, has_more: false, next_cursor: null },
    ]);
  });

  it('defaults to limit 100 and offset 0 and shows every campaign field', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id, { objective: 'traffic' });
    const list = (await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/campaigns')).json();
    expect(list).toEqual({
      data: [
        {
          id: campaign.id,
          name: 'Campaign',
          brand_name: 'Acme',
          user_id: advertiser.user.id,
          objective: 'traffic',
          status: 'paused',
          starts_at: null,
          ends_at: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      pagination: { limit: 100, offset: 0, total: 1, has_more: false, next_cursor: null },
    });
  });

  it('lists each campaign as GET shows it: every field, timestamps to the millisecond in UTC', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const created = await api('POST', '/v1/advertiser/campaigns', {
      name: 'Flight "quoted" \\ ünïcode',
      brand_name: 'Acme',
      user_id: advertiser.user.id,
      objective: 'traffic',
      starts_at: '2031-03-04T05:06:07.891Z',
      ends_at: '2031-05-06T07:08:09.012Z',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    const shown = (await api('GET', `/v1/advertiser/campaigns/${id}`)).json().data;
    const listed = (await api('GET', '/v1/advertiser/campaigns')).json().data;
    expect(listed).toEqual([shown]);
    expect(shown.starts_at).toBe('2031-03-04T05:06:07.891Z');
  });

  it('filters by status', async () => {
    const advertiser = await createAdvertiser(ctx);
    const paused = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const { campaignId: active } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    await api('POST', `/v1/advertiser/campaigns/${active}/activate`);
    const ids = async (status: string) =>
      (await api('GET', `/v1/advertiser/campaigns?status=${status}`)).json().data.map((campaign: { id: string }) => campaign.id);
    expect(await ids('active')).toEqual([active]);
    expect(await ids('paused')).toEqual([paused.id]);
    expect(await ids('completed')).toEqual([]);
    // Read as a status input is: any case, draft -> paused (the spec's value normalization); an
    // empty status= (a form's empty select) is no filter, as reporting's empty campaign_ids= is.
    expect(await ids('ACTIVE')).toEqual([active]);
    expect(await ids('draft')).toEqual([paused.id]);
    expect((await ids('')).sort()).toEqual([active, paused.id].sort());
  });

  it('pages by cursor across the members of the organization, in the same order as by offset', async () => {
    const advertiser = await createAdvertiser(ctx);
    const second = await addUser(ctx, advertiser.organization.id);
    const made = [];
    for (let index = 0; index < 7; index += 1) {
      const owner = index % 2 === 0 ? advertiser.user.id : second.id;
      made.push((await createCampaign(ctx, advertiser.key, owner, { name: `c${index}` })).id);
    }
    const created = await inListOrder(ctx, 'campaigns', made);
    const api = asAdvertiser(ctx, advertiser.key);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await api('GET', `/v1/advertiser/campaigns?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.statusCode).toBe(200);
      const page = response.json();
      expect(matchesCampaignList(page), JSON.stringify(matchesCampaignList.errors)).toBe(true);
      seen.push(...page.data.map((campaign: { id: string }) => campaign.id));
      cursor = page.pagination.next_cursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(created);
    expect(pages).toBe(3);
    // By offset, the page starts at the (offset + 1)th campaign of all the members' campaigns together.
    for (let offset = 0; offset <= 8; offset += 1) {
      const page = (await api('GET', `/v1/advertiser/campaigns?limit=2&offset=${offset}`)).json();
      expect(page.data.map((campaign: { id: string }) => campaign.id)).toEqual(created.slice(offset, offset + 2));
    }
  });

  it('by cursor, a campaign deleted between two pages shifts nothing; offset keeps its meaning (rows skipped from the start)', async () => {
    const advertiser = await createAdvertiser(ctx);
    const made = [];
    for (let index = 0; index < 6; index += 1) {
      made.push((await createCampaign(ctx, advertiser.key, advertiser.user.id, { name: `c${index}` })).id);
    }
    const created = await inListOrder(ctx, 'campaigns', made);
    const api = asAdvertiser(ctx, advertiser.key);
    const first = (await api('GET', '/v1/advertiser/campaigns?limit=2')).json();
    expect(first.data.map((campaign: { id: string }) => campaign.id)).toEqual(created.slice(0, 2));
    expect((await api('DELETE', `/v1/advertiser/campaigns/${created[0]}`)).statusCode).toBe(204);
    const next = (await api('GET', `/v1/advertiser/campaigns?limit=2&cursor=${first.pagination.next_cursor}`)).json();
    expect(next.data.map((campaign: { id: string }) => campaign.id)).toEqual(created.slice(2, 4));
    expect(next.pagination).toEqual({ limit: 2, offset: 0, total: 2, has_more: true, next_cursor: expect.any(String) });
    const byOffset = (await api('GET', '/v1/advertiser/campaigns?limit=2&offset=2')).json();
    expect(byOffset.data.map((campaign: { id: string }) => campaign.id)).toEqual(created.slice(3, 5));
  });

  it('keeps the status filter on cursor and offset pages', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const active = [];
    for (let index = 0; index < 3; index += 1) {
      await createCampaign(ctx, advertiser.key, advertiser.user.id);
      const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
      expect((await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`)).statusCode).toBe(200);
      active.push(campaignId);
    }
    const first = (await api('GET', '/v1/advertiser/campaigns?status=active&limit=2')).json();
    const second = (await api('GET', `/v1/advertiser/campaigns?status=active&limit=2&cursor=${first.pagination.next_cursor}`)).json();
    expect([...first.data, ...second.data].map((campaign: { id: string }) => campaign.id)).toEqual(active);
    expect(second.pagination.next_cursor).toBeNull();
    const byOffset = (await api('GET', '/v1/advertiser/campaigns?status=active&limit=2&offset=1')).json();
    expect(byOffset.data.map((campaign: { id: string }) => campaign.id)).toEqual(active.slice(1));
  });

  it.each([
    ['a cursor that is not one', 'cursor=abc%3D'],
    ['a cursor with a bad position', `cursor=${Buffer.from('["2026-11-23T12:00:00.000000Z","not-a-uuid"]').toString('base64url')}`],
    ['a cursor with an offset', `offset=2&cursor=${Buffer.from(`["2026-11-23T12:00:00.000000Z","${randomUUID()}"]`).toString('base64url')}`],
  ])('answers 400 bad_request in the envelope for %s', async (_what, query) => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/campaigns?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'bad_request', message: expect.any(String), details: [{ path: expect.any(String), message: expect.any(String) }] },
    });
  });

  it('answers 400 naming a parameter the list does not take (stauts), never every status', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/campaigns?stauts=active');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'stauts', message: 'unknown parameter' }] });
  });

  it.each(['status=bogus', 'status=%20', 'status=draft,active', 'limit=0', 'limit=1001', 'limit=abc', 'offset=-1', 'limit=1.5'])(
    'answers 400 bad_request for %s',
    async (query) => {
      const advertiser = await createAdvertiser(ctx);
      const response = await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/campaigns?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('bad_request');
    },
  );
});

describe('GET /v1/advertiser/campaigns/:id', () => {
  it('answers the campaign in data', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const response = await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/campaigns/${campaign.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ id: campaign.id, name: 'Campaign', status: 'paused', updated_at: expect.any(String) });
  });

  it.each(['not-a-uuid', '1', missingId])('answers 404 not_found for the id %s', async (id) => {
    const advertiser = await createAdvertiser(ctx);
    for (const url of [`/v1/advertiser/campaigns/${id}`, `/v1/advertiser/line-items/${id}`]) {
      const response = await asAdvertiser(ctx, advertiser.key)('GET', url);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });
});

describe('PATCH /v1/advertiser/campaigns/:id', () => {
  it('changes the given fields, normalizes them and bumps updated_at', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id, { objective: 'traffic' });
    const api = asAdvertiser(ctx, advertiser.key);
    const before = (await api('GET', `/v1/advertiser/campaigns/${campaign.id}`)).json().data;
    const response = await api('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, {
      name: 'Renamed',
      brand_name: 'Acme Inc',
      objective: 'brand_awareness',
    });
    expect(response.statusCode).toBe(200);
    const after = response.json().data;
    expect(after).toMatchObject({ name: 'Renamed', brand_name: 'Acme Inc', objective: 'awareness', status: 'paused' });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect(after.created_at).toBe(before.created_at);
  });

  it('clears the objective with null', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id, { objective: 'traffic' });
    const response = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { objective: null });
    expect(response.json().data.objective).toBeNull();
  });

  it('answers 422 for an empty body, an unknown field or a user_id change', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    for (const body of [{}, { colour: 'red' }, { user_id: advertiser.user.id }]) {
      const response = await api('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
    }
  });

  it('moves active <-> paused, maps draft to paused, and completes the campaign with its line items', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const patchStatus = async (status: string) => api('PATCH', `/v1/advertiser/campaigns/${campaignId}`, { status });
    expect((await patchStatus('active')).json().data.status).toBe('active');
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.status).toBe('active');
    expect((await patchStatus('paused')).json().data.status).toBe('paused');
    expect((await patchStatus('active')).json().data.status).toBe('active');
    expect((await patchStatus('draft')).json().data.status).toBe('paused');
    expect((await patchStatus('completed')).json().data.status).toBe('completed');
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.status).toBe('completed');
  });

  it('answers 422 on leaving completed: completed is final', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    await api('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { status: 'completed' });
    for (const status of ['paused', 'active']) {
      const response = await api('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { status });
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'status' }] });
    }
    const activate = await api('POST', `/v1/advertiser/campaigns/${campaign.id}/activate`);
    expect(activate.statusCode).toBe(422);
    expect((await api('GET', `/v1/advertiser/campaigns/${campaign.id}`)).json().data.status).toBe('completed');
  });

  it('applies the activation rule to status active: 422 without line items', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const response = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/campaigns/${campaign.id}`, { status: 'active' });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details).toEqual([{ path: 'line_items', message: expect.any(String) }]);
  });
});

describe('POST /v1/advertiser/campaigns/:id/activate', () => {
  it('answers 422 validation_error for a campaign without line items and leaves it paused', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const response = await api('POST', `/v1/advertiser/campaigns/${campaign.id}/activate`);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe('validation_error');
    expect((await api('GET', `/v1/advertiser/campaigns/${campaign.id}`)).json().data.status).toBe('paused');
  });

  it('makes the campaign and every line item active and answers both', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const second = (
      await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, {
        title: 'Second',
        budget: { daily: 20, currency: 'GBP' },
        bids: { bid_type: 'cpm', bid_value: 4 },
      })
    ).json().data;
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`);
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.campaign).toMatchObject({ id: campaignId, status: 'active' });
    expect(data.line_items.map((lineItem: { id: string; status: string }) => [lineItem.id, lineItem.status])).toEqual([
      [lineItemId, 'active'],
      [second.id, 'active'],
    ]);
  });

  it('answers 422 listing every line item without a budget or bids, and activates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const bare = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' })).json().data;
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`);
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response)).toEqual([
      `line_items.${bare.id}.budget`,
      `line_items.${bare.id}.bids`,
    ]);
    expect((await api('GET', `/v1/advertiser/campaigns/${campaignId}`)).json().data.status).toBe('paused');
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.status).toBe('draft');
  });

  it('leaves completed line items completed', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const done = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Done' })).json().data;
    await api('PATCH', `/v1/advertiser/line-items/${done.id}`, { status: 'completed' });
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data.line_items.map((lineItem: { id: string; status: string }) => [lineItem.id, lineItem.status])).toEqual([
      [lineItemId, 'active'],
      [done.id, 'completed'],
    ]);
  });

  it('answers 422 for a body with another field, or keep_line_items_paused that is not a boolean, and activates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    for (const body of [{ force: true }, { keep_line_items_paused: 'yes' }, { keep_line_items_paused: null }]) {
      const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await api('GET', `/v1/advertiser/campaigns/${campaignId}`)).json().data.status).toBe('paused');
  });

  it('with keep_line_items_paused, leaves paused line items paused (needing no budget) and activates the campaign and its drafts in one step', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    const bare = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' })).json().data;
    expect((await api('PATCH', `/v1/advertiser/line-items/${bare.id}`, { status: 'paused' })).statusCode).toBe(200);
    // Activated by default, the paused line item would need a budget and bids.
    expect(detailPaths(await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`))).toEqual([
      `line_items.${bare.id}.budget`,
      `line_items.${bare.id}.bids`,
    ]);
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`, { keep_line_items_paused: true });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.campaign.status).toBe('active');
    expect(response.json().data.line_items.map((lineItem: { id: string; status: string }) => [lineItem.id, lineItem.status])).toEqual([
      [lineItemId, 'active'],
      [bare.id, 'paused'],
    ]);
    expect((await api('GET', `/v1/advertiser/line-items/${bare.id}`)).json().data.status).toBe('paused');
  });

  it('with keep_line_items_paused false, activates paused line items as no body does', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    expect((await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'paused' })).statusCode).toBe(200);
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`, { keep_line_items_paused: false });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.line_items.map((lineItem: { status: string }) => lineItem.status)).toEqual(['active']);
  });
});

describe('DELETE /v1/advertiser/campaigns/:id', () => {
  it('answers 204 and cascades to line items and creatives', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      line_item: { creatives: [validCreative, validCreative] },
    });
    const api = asAdvertiser(ctx, advertiser.key);
    expect(await countRows('creatives', 'line_item_id', lineItemId)).toBe(2);
    const response = await api('DELETE', `/v1/advertiser/campaigns/${campaignId}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await api('GET', `/v1/advertiser/campaigns/${campaignId}`)).statusCode).toBe(404);
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).statusCode).toBe(404);
    expect(await countRows('line_items', 'campaign_id', campaignId)).toBe(0);
    expect(await countRows('creatives', 'line_item_id', lineItemId)).toBe(0);
    expect((await api('DELETE', `/v1/advertiser/campaigns/${campaignId}`)).statusCode).toBe(404);
  });
});

describe('POST /v1/advertiser/campaigns/:id/duplicate', () => {
  it('clones the campaign (paused, "(copy)") and its line items (draft) with budgets, bids, targeting and creatives', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
      line_item: { targeting: { keywords: { include: ['laptops'] }, languages: ['en'] }, creatives: [validCreative] },
    });
    const api = asAdvertiser(ctx, advertiser.key);
    await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Second', bids: { bid_type: 'cpm', bid_value: 3 } });
    await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`).then((response) => expect(response.statusCode).toBe(422));
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 75, currency: 'EUR' });
    const original = (await api('GET', `/v1/advertiser/campaigns/${campaignId}/line-items`)).json().data;

    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/duplicate`);
    expect(response.statusCode).toBe(201);
    const { campaign, line_items: copies } = response.json().data;
    expect(campaign).toMatchObject({ name: 'Spring launch (copy)', brand_name: 'Acme', objective: 'awareness', status: 'paused' });
    expect(campaign.id).not.toBe(campaignId);
    expect(copies).toHaveLength(2);
    copies.forEach((copy: Record<string, unknown>, index: number) => {
      const source = original[index];
      expect(copy.id).not.toBe(source.id);
      expect(copy).toMatchObject({
        campaign_id: campaign.id,
        status: 'draft',
        title: source.title,
        budget: source.budget,
        bids: source.bids,
        targeting: source.targeting,
      });
      expect((copy.creatives as object[]).map(({ id, line_item_id, created_at, ...rest }: any) => rest)).toEqual(
        source.creatives.map(({ id, line_item_id, created_at, ...rest }: any) => rest),
      );
    });
    expect(copies[0].creatives[0].id).not.toBe(original[0].creatives[0].id);
    const listed = (await api('GET', `/v1/advertiser/campaigns/${campaign.id}/line-items`)).json().data;
    expect(listed).toEqual(copies);
  });

  it('takes a new name in the body', async () => {
    const advertiser = await createAdvertiser(ctx);
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const response = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/campaigns/${campaign.id}/duplicate`, {
      name: 'Autumn launch',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ campaign: { name: 'Autumn launch', status: 'paused' }, line_items: [] });
  });

  it('cuts a long source name so that the default "<name> (copy)" stays within the 200-character limit', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    // Code points, as the limit counts them: 200 emoji are 400 UTF-16 units.
    for (const [name, copyName] of [
      ['a'.repeat(200), `${'a'.repeat(193)} (copy)`],
      ['b'.repeat(195), `${'b'.repeat(193)} (copy)`],
      ['😀'.repeat(200), `${'😀'.repeat(193)} (copy)`],
      [`${'c'.repeat(192)} d`, `${'c'.repeat(192)} (copy)`],
      ['e'.repeat(193), `${'e'.repeat(193)} (copy)`],
    ]) {
      const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id, { name });
      const copy = await api('POST', `/v1/advertiser/campaigns/${campaign.id}/duplicate`);
      expect(copy.statusCode).toBe(201);
      expect(copy.json().data.campaign.name).toBe(copyName);
      // The copy's own name is one its campaign can be PATCHed back with, and copied again.
      const copyId = copy.json().data.campaign.id;
      expect((await api('PATCH', `/v1/advertiser/campaigns/${copyId}`, { name: copyName })).statusCode).toBe(200);
      expect((await api('POST', `/v1/advertiser/campaigns/${copyId}/duplicate`)).json().data.campaign.name).toBe(copyName);
    }
  });

  it('starts paused even when the source is active', async () => {
    const advertiser = await createAdvertiser(ctx);
    const { campaignId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const api = asAdvertiser(ctx, advertiser.key);
    await api('POST', `/v1/advertiser/campaigns/${campaignId}/activate`);
    const copy = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/duplicate`)).json().data;
    expect(copy.campaign.status).toBe('paused');
    expect(copy.line_items[0].status).toBe('draft');
  });
});

describe('organizations without campaigns', () => {
  it('answers an empty page', async () => {
    const organization = await createOrganization(ctx);
    const key = (await ctx.admin({ method: 'POST', url: `/v1/admin/organizations/${organization.id}/api-keys`, payload: { permissions: ['campaigns'] } })).json().data.key;
    const list = (await asAdvertiser(ctx, key)('GET', '/v1/advertiser/campaigns')).json();
    expect(list).toEqual({ data: [], pagination: { limit: 100, offset: 0, total: 0, has_more: false, next_cursor: null } });
  });
});
