import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { certifyPlacement, createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { eventuallyServed, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { inListOrder } from '../helpers/listOrder.js';
import { contractSchema } from '../helpers/contract.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

function asPublisher(token: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return ctx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

async function requestReview(token: string, placementIds: string[], note?: string) {
  return asPublisher(token, 'POST', '/v1/publisher/integration-reviews', { placement_ids: placementIds, ...(note ? { note } : {}) });
}

describe('publisher authentication', () => {
  it('answers 401 auth_missing without a token and auth_invalid with a wrong or revoked one', async () => {
    const publisher = await createPublisher(ctx);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/publisher/placements' })).json().error.code).toBe('auth_missing');
    expect((await asPublisher('pt_wrong', 'GET', '/v1/publisher/placements')).json().error.code).toBe('auth_invalid');
    await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${publisher.token_id}` });
    const revoked = await asPublisher(publisher.token, 'GET', '/v1/publisher/placements');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.code).toBe('auth_invalid');
  });

  it('does not accept the admin token', async () => {
    const response = await asPublisher(ctx.secrets.adminToken, 'GET', '/v1/publisher/placements');
    expect(response.statusCode).toBe(401);
  });
});

describe('GET /v1/publisher/me', () => {
  it("names the token's own publisher, for each token of each publisher, and takes no query parameter", async () => {
    const validate = contractSchema('#/components/schemas/PublisherMeResponse');
    const first = await createPublisher(ctx);
    const second = await createPublisher(ctx);
    const another = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${first.id}/tokens` });
    expect(another.statusCode).toBe(201);
    for (const [token, publisher] of [[first.token, first], [another.json().data.token as string, first], [second.token, second]] as const) {
      const response = await asPublisher(token, 'GET', '/v1/publisher/me');
      expect(response.statusCode, response.body).toBe(200);
      expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
      expect(response.json()).toEqual({
        data: { publisher: { id: publisher.id, name: publisher.name, created_at: publisher.created_at }, serve_url: `${ctx.config.SERVE_BASE_URL}/v1/serve` },
      });
    }
    const withQuery = await asPublisher(first.token, 'GET', '/v1/publisher/me?limit=1');
    expect(withQuery.statusCode).toBe(400);
    expect(withQuery.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'limit' }] });
  });

  it('is 401 without a token, with an unknown one and with a revoked one', async () => {
    const publisher = await createPublisher(ctx);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/publisher/me' })).json().error.code).toBe('auth_missing');
    expect((await asPublisher('pt_wrong', 'GET', '/v1/publisher/me')).json().error.code).toBe('auth_invalid');
    await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${publisher.token_id}` });
    const revoked = await asPublisher(publisher.token, 'GET', '/v1/publisher/me');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.code).toBe('auth_invalid');
  });
});

describe('GET /v1/publisher/placements', () => {
  it("lists only the publisher's own placements, with certification, eligible price models and history", async () => {
    const publisher = await createPublisher(ctx);
    const other = await createPublisher(ctx);
    const plain = await createPlacement(ctx, publisher.id);
    const certified = await createPlacement(ctx, publisher.id);
    await createPlacement(ctx, other.id);
    await certifyPlacement(ctx, certified.id);

    const response = await asPublisher(publisher.token, 'GET', '/v1/publisher/placements');
    expect(response.statusCode).toBe(200);
    const placements: Array<{ id: string }> = response.json().data;
    expect(placements.map((placement) => placement.id)).toEqual(await inListOrder(ctx, 'placements', [plain.id, certified.id]));
    const listed = (id: string) => placements.find((placement) => placement.id === id);
    expect(listed(plain.id)).toMatchObject({
      id: plain.id,
      publisher_id: publisher.id,
      certification: 'uncertified',
      eligible_price_models: ['CPC', 'CPA'],
      history: [{ from: null, to: 'uncertified', actor: 'operator' }],
    });
    expect(listed(certified.id)).toMatchObject({
      certification: 'certified',
      eligible_price_models: ['tCPM', 'CPC', 'CPA'],
      history: [{ to: 'uncertified' }, { from: 'uncertified', to: 'certified', actor: 'operator' }],
    });
  });
  it.each(['limit=1', 'certification=revoked', 'offset=-1'])(
    'answers 400 naming %s: the list is whole and takes no parameter, so none is ignored',
    async (query) => {
      const publisher = await createPublisher(ctx);
      const response = await asPublisher(publisher.token, 'GET', `/v1/publisher/placements?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'bad_request', details: [{ path: query.split('=')[0], message: 'unknown parameter' }] });
    },
  );
});

describe('POST /v1/publisher/integration-reviews', () => {
  it('creates a pending review for its own placements (201)', async () => {
    const publisher = await createPublisher(ctx);
    const [a, b] = [await createPlacement(ctx, publisher.id), await createPlacement(ctx, publisher.id)];
    const response = await requestReview(publisher.token, [b.id, a.id, a.id], 'pixel fires on render, see /chat');
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toEqual({
      id: expect.any(String),
      publisher_id: publisher.id,
      publisher_name: publisher.name,
      placement_ids: [a.id, b.id].sort(),
      status: 'pending',
      note: 'pixel fires on render, see /chat',
      decided_by: null,
      decision_reason: null,
      decided_at: null,
      created_at: expect.anything(),
    });
    const listed = await asPublisher(publisher.token, 'GET', '/v1/publisher/integration-reviews');
    expect(listed.json().data.map((review: { id: string }) => review.id)).toEqual([response.json().data.id]);
  });

  it("answers 404 for another publisher's placement or an unknown one, and creates nothing", async () => {
    const publisher = await createPublisher(ctx);
    const other = await createPublisher(ctx);
    const own = await createPlacement(ctx, publisher.id);
    const theirs = await createPlacement(ctx, other.id);
    const response = await requestReview(publisher.token, [own.id, theirs.id]);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toContain(theirs.id);
    expect((await requestReview(publisher.token, ['never-registered'])).statusCode).toBe(404);
    expect((await asPublisher(publisher.token, 'GET', '/v1/publisher/integration-reviews')).json().data).toEqual([]);
  });

  it('answers 422 for an empty list, a bad id or an unknown field', async () => {
    const publisher = await createPublisher(ctx);
    expect((await requestReview(publisher.token, [])).statusCode).toBe(422);
    expect((await requestReview(publisher.token, ['bad id'])).statusCode).toBe(422);
    const unknown = await asPublisher(publisher.token, 'POST', '/v1/publisher/integration-reviews', { placement_ids: ['x'], urgent: true });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.details).toEqual([{ path: 'urgent', message: 'unknown field' }]);
  });

  it('answers 409 for a placement already certified or already in a pending review', async () => {
    const publisher = await createPublisher(ctx);
    const [pending, certified] = [await createPlacement(ctx, publisher.id), await createPlacement(ctx, publisher.id)];
    await certifyPlacement(ctx, certified.id);
    expect((await requestReview(publisher.token, [pending.id])).statusCode).toBe(201);
    const again = await requestReview(publisher.token, [pending.id]);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('conflict');
    expect((await requestReview(publisher.token, [certified.id])).statusCode).toBe(409);
  });
});

describe('integration reviews: the operator side', () => {
  it('lists pending reviews oldest first for operators only', async () => {
    const publisher = await createPublisher(ctx);
    const first = (await requestReview(publisher.token, [(await createPlacement(ctx, publisher.id)).id])).json().data;
    const second = (await requestReview(publisher.token, [(await createPlacement(ctx, publisher.id)).id])).json().data;
    const response = await ctx.admin({ method: 'GET', url: '/v1/admin/integration-reviews?status=pending&limit=500' });
    expect(response.statusCode).toBe(200);
    const ids = response.json().data.map((review: { id: string }) => review.id);
    const [older, newer] = await inListOrder(ctx, 'integration_reviews', [first.id, second.id]);
    expect(ids.indexOf(older)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(older)).toBeLessThan(ids.indexOf(newer));
    expect((await asPublisher(publisher.token, 'GET', '/v1/admin/integration-reviews')).statusCode).toBe(401);
    expect((await ctx.admin({ method: 'GET', url: '/v1/admin/integration-reviews?status=done' })).statusCode).toBe(400);
  });

  it('approving certifies every placement with a history entry, and tCPM demand is served there next', async () => {
    const advertiser = await createAdvertiser(ctx);
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const word = uniqueWord();
    const cpm = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 50_000 },
      targeting: { keywords: { include: [word] } },
    });
    const cpc = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 5 },
      targeting: { keywords: { include: [word] } },
    });
    const body = { placement_id: placement.id, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, cpc.lineItemId);

    const review = (await requestReview(publisher.token, [placement.id])).json().data;
    const approved = await ctx.admin({ method: 'POST', url: `/v1/admin/integration-reviews/${review.id}/approve`, payload: { reason: 'pixel verified' } });
    expect(approved.statusCode).toBe(200);
    expect(approved.json().data).toMatchObject({ status: 'approved', decided_by: 'operator', decision_reason: 'pixel verified', decided_at: expect.anything() });

    const placements = (await asPublisher(publisher.token, 'GET', '/v1/publisher/placements')).json().data;
    expect(placements[0].certification).toBe('certified');
    expect(placements[0].history.at(-1)).toMatchObject({
      from: 'uncertified',
      to: 'certified',
      actor: 'operator',
      reason: `integration review ${review.id} approved: pixel verified`,
    });
    await eventuallyServed(ctx, publisher.token, body, cpm.lineItemId);

    const twice = await ctx.admin({ method: 'POST', url: `/v1/admin/integration-reviews/${review.id}/approve` });
    expect(twice.statusCode).toBe(409);
  });

  it('rejecting needs a reason, leaves the placements as they were, and lets the publisher ask again', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const review = (await requestReview(publisher.token, [placement.id])).json().data;
    const url = `/v1/admin/integration-reviews/${review.id}/reject`;
    expect((await ctx.admin({ method: 'POST', url, payload: {} })).statusCode).toBe(422);
    const rejected = await ctx.admin({ method: 'POST', url, payload: { reason: 'clicks link straight to the advertiser' } });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json().data).toMatchObject({ status: 'rejected', decision_reason: 'clicks link straight to the advertiser' });
    const placements = (await asPublisher(publisher.token, 'GET', '/v1/publisher/placements')).json().data;
    expect(placements[0].certification).toBe('uncertified');
    const mine = (await asPublisher(publisher.token, 'GET', '/v1/publisher/integration-reviews?status=rejected')).json().data;
    expect(mine).toMatchObject([{ id: review.id, status: 'rejected' }]);
    expect((await requestReview(publisher.token, [placement.id])).statusCode).toBe(201);
  });

  it('answers 404 for an unknown review and for an id that is not a UUID', async () => {
    const unknown = await ctx.admin({ method: 'POST', url: '/v1/admin/integration-reviews/00000000-0000-4000-8000-000000000000/approve' });
    expect(unknown.statusCode).toBe(404);
    expect((await ctx.admin({ method: 'POST', url: '/v1/admin/integration-reviews/nope/reject', payload: { reason: 'x' } })).statusCode).toBe(404);
  });
});
