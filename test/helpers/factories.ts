import { randomUUID } from 'node:crypto';
import { startTestApp, type TestContext } from './testApp.js';

/** Tiny factories over the admin API, so every test sets up its own isolated tenant. */

export async function createOrganization(ctx: TestContext, name = `org-${randomUUID().slice(0, 8)}`) {
  const response = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name } });
  if (response.statusCode !== 201) throw new Error(`create organization: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; name: string; created_at: string };
}

export async function addUser(ctx: TestContext, organizationId: string, email = `user-${randomUUID()}@example.com`) {
  const response = await ctx.admin({
    method: 'POST',
    url: `/v1/admin/organizations/${organizationId}/users`,
    payload: { email },
  });
  if (response.statusCode !== 201) throw new Error(`add user: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; email: string; organization_id: string };
}

export async function createApiKey(ctx: TestContext, organizationId: string, permissions: string[] = ['campaigns', 'reporting']) {
  const response = await ctx.admin({
    method: 'POST',
    url: `/v1/admin/organizations/${organizationId}/api-keys`,
    payload: { permissions },
  });
  if (response.statusCode !== 201) throw new Error(`create API key: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; key: string; permissions: string[] };
}

/**
 * An organization with one member and one key carrying `permissions`. Its `key` and `userId` are
 * what a test acting as the advertiser needs (servingFixtures' Advertiser).
 */
export async function createAdvertiser(ctx: TestContext, permissions: string[] = ['campaigns', 'reporting']) {
  const organization = await createOrganization(ctx);
  const user = await addUser(ctx, organization.id);
  const apiKey = await createApiKey(ctx, organization.id, permissions);
  return { organization, user, apiKey, key: apiKey.key, userId: user.id };
}

export async function createPublisher(ctx: TestContext, name = `pub-${randomUUID().slice(0, 8)}`) {
  const response = await ctx.admin({ method: 'POST', url: '/v1/admin/publishers', payload: { name } });
  if (response.statusCode !== 201) throw new Error(`create publisher: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; name: string; created_at: string; token: string; token_id: string };
}

export async function createPlacement(ctx: TestContext, publisherId: string, id = `pl-${randomUUID().slice(0, 12)}`) {
  const response = await ctx.admin({
    method: 'POST',
    url: `/v1/admin/publishers/${publisherId}/placements`,
    payload: { id, name: `placement ${id}` },
  });
  if (response.statusCode !== 201) throw new Error(`create placement: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; publisher_id: string; certification: string };
}

export async function certifyPlacement(ctx: TestContext, placementId: string) {
  const response = await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placementId}/certify` });
  if (response.statusCode !== 200) throw new Error(`certify placement: ${response.statusCode} ${response.body}`);
  return response.json().data;
}

/** A new placement of the publisher, certified (eligible for every price model); its id. */
export async function createCertifiedPlacement(ctx: TestContext, publisherId: string): Promise<string> {
  const { id } = await createPlacement(ctx, publisherId);
  await certifyPlacement(ctx, id);
  return id;
}

/** The setup most route tests share: the app on this file's stores (env as startTestApp takes it), an advertiser and a publisher. */
export async function startAppWithAdvertiserAndPublisher(env: Record<string, string> = {}) {
  const ctx = await startTestApp(env);
  return { ctx, advertiser: await createAdvertiser(ctx), publisher: await createPublisher(ctx) };
}
