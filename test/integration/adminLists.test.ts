import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { addUser, createAdvertiser, createApiKey, createOrganization, createPlacement, createPublisher } from '../helpers/factories.js';
import { contractSchema } from '../helpers/contract.js';
import { inListOrder } from '../helpers/listOrder.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

interface Page {
  data: Array<Record<string, unknown> & { id: string }>;
  pagination: { limit: number; offset: number; total: number; has_more: boolean; next_cursor: string | null };
}

/** GET as the operator; the answer must be 200 and match the list's schema in openapi.yaml. */
async function listPage(url: string, schema: string): Promise<Page> {
  const response = await ctx.admin({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  const validate = contractSchema(`#/components/schemas/${schema}`);
  expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
  return response.json() as Page;
}

/** Every row of a list, following next_cursor page by page. */
async function walkByCursor(url: string, schema: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const page: Page = await listPage(`${url}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, schema);
    ids.push(...page.data.map((row) => row.id));
    expect(page.pagination.next_cursor === null).toBe(!page.pagination.has_more);
    cursor = page.pagination.next_cursor;
  } while (cursor);
  return ids;
}

async function walkByOffset(url: string, schema: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await listPage(`${url}?limit=${limit}&offset=${offset}`, schema);
    ids.push(...page.data.map((row) => row.id));
    if (!page.pagination.has_more) return ids;
  }
}

/**
 * Walking by offset after walking by cursor must give the same rows in the same order. On the
 * PostgreSQL server pass other test files create organizations and publishers at the same time,
 * so rows made between the two walks are left out of the comparison (they are the newest rows).
 */
function expectSameRowsAsCursorWalk(byOffset: string[], byCursor: string[]): void {
  const seenByCursor = new Set(byCursor);
  expect(byOffset.filter((id) => seenByCursor.has(id))).toEqual(byCursor);
  expect(new Set(byOffset).size).toBe(byOffset.length);
}

const listRoutes = (orgId: string, publisherId: string) => [
  '/v1/admin/organizations',
  `/v1/admin/organizations/${orgId}/users`,
  `/v1/admin/organizations/${orgId}/api-keys`,
  '/v1/admin/publishers',
  `/v1/admin/publishers/${publisherId}/tokens`,
  `/v1/admin/publishers/${publisherId}/placements`,
];

describe('admin lists: only the admin token', () => {
  it('answers 401 without a token, with a wrong one, with an API key and with a publisher token', async () => {
    const advertiser = await createAdvertiser(ctx);
    const publisher = await createPublisher(ctx);
    for (const url of listRoutes(advertiser.organization.id, publisher.id)) {
      const none = await ctx.app.inject({ method: 'GET', url });
      expect(none.statusCode, url).toBe(401);
      expect(none.json()).toEqual({ error: { code: 'auth_missing', message: expect.any(String) } });
      for (const headers of [
        { authorization: 'Bearer wrong-token' },
        { authorization: `Bearer ${advertiser.key}` },
        { authorization: `Bearer ${publisher.token}` },
      ]) {
        const refused = await ctx.app.inject({ method: 'GET', url, headers });
        expect(refused.statusCode, url).toBe(401);
        expect(refused.json().error.code).toBe('auth_invalid');
      }
      const withKey = await ctx.app.inject({ method: 'GET', url, headers: { 'x-api-key': advertiser.key } });
      expect(withKey.statusCode, url).toBe(401);
    }
  });
});

describe('GET /v1/admin/organizations', () => {
  it('lists organizations oldest first, the same rows by cursor as by offset', async () => {
    const made = [await createOrganization(ctx), await createOrganization(ctx), await createOrganization(ctx)];
    const byCursor = await walkByCursor('/v1/admin/organizations', 'OrganizationList', 2);
    expect(new Set(byCursor).size).toBe(byCursor.length);
    expect(byCursor.filter((id) => made.some((org) => org.id === id))).toEqual(await inListOrder(ctx, 'organizations', made.map((org) => org.id)));
    expectSameRowsAsCursorWalk(await walkByOffset('/v1/admin/organizations', 'OrganizationList', 2), byCursor);
  });
});

describe('GET /v1/admin/organizations/{org_id}/users', () => {
  it('lists members in the order they joined, with the spec pagination and next_cursor', async () => {
    const organization = await createOrganization(ctx);
    const users = [await addUser(ctx, organization.id), await addUser(ctx, organization.id), await addUser(ctx, organization.id)];
    const first = await listPage(`/v1/admin/organizations/${organization.id}/users?limit=2`, 'MemberList');
    expect(first.data).toEqual(users.slice(0, 2).map((user) => ({ ...user, created_at: expect.any(String) })));
    expect(first.pagination).toEqual({ limit: 2, offset: 0, total: 2, has_more: true, next_cursor: expect.any(String) });
    const second = await listPage(`/v1/admin/organizations/${organization.id}/users?limit=2&cursor=${first.pagination.next_cursor}`, 'MemberList');
    expect(second.data.map((row) => row.id)).toEqual([users[2]!.id]);
    expect(second.pagination).toEqual({ limit: 2, offset: 0, total: 1, has_more: false, next_cursor: null });
  });

  it('continues after the last row read when a row of an earlier page is deleted; offset counts from the start', async () => {
    const organization = await createOrganization(ctx);
    const users = [];
    for (let n = 0; n < 4; n += 1) users.push(await addUser(ctx, organization.id));
    const url = `/v1/admin/organizations/${organization.id}/users?limit=2`;
    const first = await listPage(url, 'MemberList');
    await ctx.stores.db.query('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', [organization.id, users[0]!.id]);
    const byCursor = await listPage(`${url}&cursor=${first.pagination.next_cursor}`, 'MemberList');
    expect(byCursor.data.map((row) => row.id)).toEqual([users[2]!.id, users[3]!.id]);
    const byOffset = await listPage(`${url}&offset=2`, 'MemberList');
    expect(byOffset.data.map((row) => row.id)).toEqual([users[3]!.id]);
  });

  it('answers 404 for an unknown organization', async () => {
    const response = await ctx.admin({ method: 'GET', url: '/v1/admin/organizations/00000000-0000-4000-8000-000000000000/users' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });
});

describe('GET /v1/admin/organizations/{org_id}/api-keys', () => {
  it('lists keys with their permissions and revocation, never the key or its hash', async () => {
    const organization = await createOrganization(ctx);
    const live = await createApiKey(ctx, organization.id, ['reporting']);
    const revoked = await createApiKey(ctx, organization.id);
    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${revoked.id}` })).statusCode).toBe(204);
    const response = await ctx.admin({ method: 'GET', url: `/v1/admin/organizations/${organization.id}/api-keys` });
    expect(response.body).not.toContain(live.key);
    expect(response.body).not.toContain(revoked.key);
    expect(response.body).not.toContain('hash');
    const page = await listPage(`/v1/admin/organizations/${organization.id}/api-keys`, 'ApiKeyList');
    expect(page.data).toEqual([
      { id: live.id, organization_id: organization.id, permissions: ['reporting'], created_at: expect.any(String), revoked_at: null },
      { id: revoked.id, organization_id: organization.id, permissions: ['campaigns', 'reporting'], created_at: expect.any(String), revoked_at: expect.any(String) },
    ]);
  });
});

describe('GET /v1/admin/publishers and a publisher\'s tokens and placements', () => {
  it('lists publishers oldest first, the same rows by cursor as by offset', async () => {
    const made = [await createPublisher(ctx), await createPublisher(ctx)];
    const byCursor = await walkByCursor('/v1/admin/publishers', 'PublisherList', 3);
    expect(byCursor.filter((id) => made.some((publisher) => publisher.id === id))).toEqual(await inListOrder(ctx, 'publishers', made.map((publisher) => publisher.id)));
    expectSameRowsAsCursorWalk(await walkByOffset('/v1/admin/publishers', 'PublisherList', 3), byCursor);
  });

  it('lists tokens with their revocation, never the token', async () => {
    const publisher = await createPublisher(ctx);
    const issued = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/tokens` });
    const second = issued.json().data as { id: string; token: string };
    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${publisher.token_id}` })).statusCode).toBe(204);
    const response = await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${publisher.id}/tokens` });
    expect(response.body).not.toContain(publisher.token);
    expect(response.body).not.toContain(second.token);
    const page = await listPage(`/v1/admin/publishers/${publisher.id}/tokens`, 'PublisherTokenList');
    expect(page.data).toEqual([
      { id: publisher.token_id, publisher_id: publisher.id, created_at: expect.any(String), revoked_at: expect.any(String) },
      { id: second.id, publisher_id: publisher.id, created_at: expect.any(String), revoked_at: null },
    ]);
  });

  it('lists placements with their certification, paged by cursor over text ids', async () => {
    const publisher = await createPublisher(ctx);
    const placements = [];
    for (const id of ['zeta-top', 'alpha-side', 'mid.answer']) placements.push(await createPlacement(ctx, publisher.id, id));
    expect((await ctx.admin({ method: 'POST', url: '/v1/admin/placements/alpha-side/certify' })).statusCode).toBe(200);
    const url = `/v1/admin/publishers/${publisher.id}/placements`;
    expect(await walkByCursor(url, 'PlacementSummaryList', 2)).toEqual(['zeta-top', 'alpha-side', 'mid.answer']);
    const page = await listPage(url, 'PlacementSummaryList');
    expect(page.data.map((row) => [row.id, row.certification])).toEqual([
      ['zeta-top', 'uncertified'],
      ['alpha-side', 'certified'],
      ['mid.answer', 'uncertified'],
    ]);
  });

  it('answers one publisher as created (GET /v1/admin/publishers/{publisher_id}), 404 not_found for an unknown or malformed id, 401 without the token', async () => {
    const publisher = await createPublisher(ctx);
    const response = await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${publisher.id}` });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { id: publisher.id, name: publisher.name, created_at: publisher.created_at, revenue_share: 0.7 } });
    const validate = contractSchema('#/paths/~1v1~1admin~1publishers~1%7Bpublisher_id%7D/get/responses/200/content/application~1json/schema');
    expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/${id}` });
      expect(missing.statusCode, id).toBe(404);
      expect(missing.json().error.code, id).toBe('not_found');
      expect(contractSchema('#/components/schemas/Error')(missing.json()), id).toBe(true);
    }
    expect((await ctx.app.inject({ method: 'GET', url: `/v1/admin/publishers/${publisher.id}` })).statusCode).toBe(401);
  });

  it('answers 404 for an unknown publisher', async () => {
    for (const list of ['tokens', 'placements']) {
      const response = await ctx.admin({ method: 'GET', url: `/v1/admin/publishers/00000000-0000-4000-8000-000000000000/${list}` });
      expect(response.statusCode).toBe(404);
    }
  });
});

describe('admin lists: bad paging parameters', () => {
  it('answers 400 bad_request in the envelope for a cursor this list did not make, a cursor with an offset, and bounds', async () => {
    const publisher = await createPublisher(ctx);
    await createPlacement(ctx, publisher.id, `text-id-${publisher.id.slice(0, 8)}`);
    await createPlacement(ctx, publisher.id);
    const placementPage = await listPage(`/v1/admin/publishers/${publisher.id}/placements?limit=1`, 'PlacementSummaryList');
    const placementCursor = placementPage.pagination.next_cursor!;
    const organizationCursor = (await listPage('/v1/admin/organizations?limit=1', 'OrganizationList')).pagination.next_cursor!;
    const bad = [
      '/v1/admin/organizations?cursor=not-a-cursor',
      '/v1/admin/organizations?cursor=%2F%2F%2F',
      `/v1/admin/organizations?cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`,
      `/v1/admin/organizations?cursor=${placementCursor}`,
      `/v1/admin/organizations?cursor=${organizationCursor}&offset=5`,
      '/v1/admin/organizations?limit=0',
      '/v1/admin/organizations?limit=1001',
      '/v1/admin/publishers?offset=-1',
      '/v1/admin/organizations?limt=5',
      `/v1/admin/publishers/${publisher.id}/placements?cursr=x`,
      '/v1/admin/integration-reviews?stauts=pending',
      '/v1/admin/integration-reviews?status=done',
    ];
    for (const url of bad) {
      const response = await ctx.admin({ method: 'GET', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toEqual({
        error: { code: 'bad_request', message: expect.any(String), details: [{ path: expect.any(String), message: expect.any(String) }] },
      });
    }
    const unknown = await ctx.admin({ method: 'GET', url: '/v1/admin/organizations?limt=5' });
    expect(unknown.json().error.details).toEqual([{ path: 'limt', message: 'unknown parameter' }]);
  });
});
