import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createPlacement, createPublisher } from '../helpers/factories.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

const NUL = '\u0000';

async function placementState(id: string) {
  return (await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${id}` })).json().data;
}

describe('free text written to Postgres refuses NUL with 422, not 500', () => {
  it('organization, publisher and placement names', async () => {
    const name = `nul-${randomUUID()}`;
    const cases = [
      { url: '/v1/admin/organizations', payload: { name: `${name}${NUL}` } },
      { url: '/v1/admin/publishers', payload: { name: `${name}${NUL}` } },
      { url: `/v1/admin/publishers/${(await createPublisher(ctx)).id}/placements`, payload: { id: `pl-${randomUUID().slice(0, 8)}`, name: `a${NUL}b` } },
    ];
    for (const { url, payload } of cases) {
      const response = await ctx.admin({ method: 'POST', url, payload });
      expect(response.statusCode, url).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'name' }] });
    }
    const stored = await ctx.stores.db.query('SELECT 1 FROM organizations WHERE name LIKE $1 UNION ALL SELECT 1 FROM publishers WHERE name LIKE $1', [`${name}%`]);
    expect(stored.rows).toEqual([]);
  });

  it('certification reasons, and the placement keeps its state', async () => {
    const placement = await createPlacement(ctx, (await createPublisher(ctx)).id);
    for (const action of ['certify', 'revoke']) {
      const response = await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement.id}/${action}`, payload: { reason: `ok${NUL}` } });
      expect(response.statusCode, action).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'reason' }] });
    }
    expect((await placementState(placement.id)).certification).toBe('uncertified');
  });

  it('an integration-review note and the operator reasons', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const asPublisher = { authorization: `Bearer ${publisher.token}` };
    const note = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publisher/integration-reviews',
      headers: asPublisher,
      payload: { placement_ids: [placement.id], note: `see ${NUL}` },
    });
    expect(note.statusCode).toBe(422);
    expect(note.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'note' }] });

    const review = await ctx.app.inject({ method: 'POST', url: '/v1/publisher/integration-reviews', headers: asPublisher, payload: { placement_ids: [placement.id] } });
    expect(review.statusCode).toBe(201);
    for (const action of ['approve', 'reject']) {
      const response = await ctx.admin({ method: 'POST', url: `/v1/admin/integration-reviews/${review.json().data.id}/${action}`, payload: { reason: `no${NUL}` } });
      expect(response.statusCode, action).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'reason' }] });
    }
    expect((await placementState(placement.id)).certification).toBe('uncertified');
  });
});

describe('admin bodies refuse unknown fields with 422', () => {
  it('answers validation_error naming the unknown field on every admin body, and changes nothing', async () => {
    const organization = (await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: 'strict org' } })).json().data;
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    const cases = [
      { url: '/v1/admin/organizations', payload: { name: 'x', nmae: 'typo' } },
      { url: `/v1/admin/organizations/${organization.id}/users`, payload: { email: 'strict@example.com', role: 'owner' } },
      { url: `/v1/admin/organizations/${organization.id}/api-keys`, payload: { permissions: ['reporting'], expires: '2030-01-01' } },
      { url: '/v1/admin/publishers', payload: { name: 'x', domain: 'example.com' } },
      { url: `/v1/admin/publishers/${publisher.id}/placements`, payload: { id: `pl-${randomUUID().slice(0, 8)}`, label: 'x' } },
      { url: `/v1/admin/placements/${placement.id}/certify`, payload: { reason: 'ok', force: true } },
    ];
    for (const { url, payload } of cases) {
      const response = await ctx.admin({ method: 'POST', url, payload });
      expect(response.statusCode, url).toBe(422);
      const unknown = Object.keys(payload).at(-1);
      expect(response.json().error, url).toMatchObject({ code: 'validation_error', details: [{ path: unknown, message: 'unknown field' }] });
    }
    expect((await ctx.stores.db.query('SELECT 1 FROM memberships WHERE organization_id = $1', [organization.id])).rows).toEqual([]);
    expect((await ctx.stores.db.query('SELECT 1 FROM api_keys WHERE organization_id = $1', [organization.id])).rows).toEqual([]);
    expect((await placementState(placement.id)).certification).toBe('uncertified');
  });
});
