import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createApiKey } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { contractSchema } from '../helpers/contract.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

describe("GET /v1/advertiser/me: the caller's organization and its key's permissions", () => {
  it("names the key's own organization and permissions, for each key of each organization, never another's", async () => {
    const validate = contractSchema('#/components/schemas/AdvertiserMeResponse');
    const first = await createAdvertiser(ctx);
    const second = await createAdvertiser(ctx);
    // Created in the other order, answered in the documented one.
    const reportingAndCampaigns = await createApiKey(ctx, first.organization.id, ['reporting', 'campaigns']);
    const reportingOnly = await createApiKey(ctx, first.organization.id, ['reporting']);
    const campaignsOnly = await createApiKey(ctx, second.organization.id, ['campaigns']);

    const cases = [
      { key: reportingAndCampaigns, organization: first.organization, permissions: ['campaigns', 'reporting'] },
      { key: reportingOnly, organization: first.organization, permissions: ['reporting'] },
      { key: campaignsOnly, organization: second.organization, permissions: ['campaigns'] },
      { key: second.apiKey, organization: second.organization, permissions: ['campaigns', 'reporting'] },
    ];
    for (const { key, organization, permissions } of cases) {
      const response = await asAdvertiser(ctx, key.key)('GET', '/v1/advertiser/me');
      expect(response.statusCode, response.body).toBe(200);
      expect(validate(response.json()), JSON.stringify(validate.errors)).toBe(true);
      expect(response.json()).toEqual({
        data: { organization: { id: organization.id, name: organization.name, created_at: organization.created_at }, api_key: { id: key.id, permissions } },
      });
    }
  });

  it('is 401 without a key, with an unknown one and with a revoked one, and 400 for any query parameter', async () => {
    const advertiser = await createAdvertiser(ctx);
    const missing = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/me' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('auth_missing');
    const unknown = await asAdvertiser(ctx, 'ak_not-a-key')('GET', '/v1/advertiser/me');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe('auth_invalid');

    const withQuery = await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/me?limit=1');
    expect(withQuery.statusCode).toBe(400);
    expect(withQuery.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'limit' }] });

    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/api-keys/${advertiser.apiKey.id}` })).statusCode).toBe(204);
    const revoked = await asAdvertiser(ctx, advertiser.key)('GET', '/v1/advertiser/me');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.code).toBe('auth_invalid');
  });
});
