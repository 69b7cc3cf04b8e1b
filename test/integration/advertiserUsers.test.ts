import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { addUser, createAdvertiser, createApiKey } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { contractSchema } from '../helpers/contract.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

interface MemberPage {
  data: Array<{ id: string; email: string; organization_id: string; created_at: string }>;
  pagination: { has_more: boolean; next_cursor: string | null };
}

describe('GET /v1/advertiser/users: the members a campaign owner may be chosen from', () => {
  it("lists the key's organization's members in the order they joined, by cursor, and nobody else's", async () => {
    const advertiser = await createAdvertiser(ctx);
    const later = [await addUser(ctx, advertiser.organization.id), await addUser(ctx, advertiser.organization.id)];
    const other = await createAdvertiser(ctx);
    const request = asAdvertiser(ctx, advertiser.key);
    const validate = contractSchema('#/components/schemas/MemberList');

    const emails: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await request('GET', `/v1/advertiser/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
      const page = response.json() as MemberPage;
      expect(page.data.every((member) => member.organization_id === advertiser.organization.id)).toBe(true);
      emails.push(...page.data.map((member) => member.email));
      cursor = page.pagination.next_cursor;
    } while (cursor);
    expect(emails).toEqual([advertiser.user.email, ...later.map((user) => user.email)]);
    expect(emails).not.toContain(other.user.email);

    // The ids listed are the ones a campaign may name: one of them creates a campaign.
    const members = ((await request('GET', '/v1/advertiser/users')).json() as MemberPage).data;
    const created = await request('POST', '/v1/advertiser/campaigns', { name: 'Owned', brand_name: 'Acme', user_id: members[2]!.id });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('needs a key with the campaigns permission; bad paging is 400', async () => {
    const advertiser = await createAdvertiser(ctx);
    const reportingOnly = await createApiKey(ctx, advertiser.organization.id, ['reporting']);
    const forbidden = await asAdvertiser(ctx, reportingOnly.key)('GET', '/v1/advertiser/users');
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('forbidden');
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/users' })).statusCode).toBe(401);
    const badLimit = await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/users?limit=0');
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json().error.code).toBe('bad_request');
  });
});
