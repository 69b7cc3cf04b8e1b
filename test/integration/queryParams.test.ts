import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPublisher } from '../helpers/factories.js';
import { contract } from '../helpers/contract.js';

let ctx: TestContext;
let apiKey: string;
let publisherToken: string;

beforeAll(async () => {
  ctx = await startTestApp();
  apiKey = (await createAdvertiser(ctx)).key;
  publisherToken = (await createPublisher(ctx)).token;
});
afterAll(async () => ctx.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Operation {
  security?: Array<Record<string, unknown>>;
}

/** Every JSON operation of the contract: the tracking links and the serve take any query (their own tests). */
function jsonOperations(): Array<{ method: Method; path: string; scheme: string }> {
  const operations: Array<{ method: Method; path: string; scheme: string }> = [];
  for (const [path, methods] of Object.entries(contract.paths)) {
    if (!path.startsWith('/v1/') || path.startsWith('/v1/t/') || path === '/v1/serve') continue;
    for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({ method: method.toUpperCase() as Method, path, scheme: Object.keys(operation.security?.[0] ?? {})[0] ?? 'none' });
    }
  }
  return operations;
}

function credentials(scheme: string): Record<string, string> {
  if (scheme === 'ApiKey') return { 'x-api-key': apiKey };
  if (scheme === 'PublisherToken') return { authorization: `Bearer ${publisherToken}` };
  return {};
}

describe('query parameters of the JSON routes', () => {
  it('every management, reporting, publisher and admin operation refuses a parameter it does not take', async () => {
    const operations = jsonOperations();
    expect(operations.length).toBeGreaterThan(50);
    const answered: string[] = [];
    for (const { method, path, scheme } of operations) {
      const url = `${path.replace(/\{[^}]+\}/g, randomUUID())}?not_a_parameter=1`;
      const options: InjectOptions = { method, url, headers: credentials(scheme) };
      const response = scheme === 'AdminToken' ? await ctx.admin(options) : await ctx.app.inject(options);
      const details = response.statusCode === 400 ? (response.json().error.details as unknown[]) : [];
      if (!details.some((detail) => JSON.stringify(detail) === JSON.stringify({ path: 'not_a_parameter', message: 'unknown parameter' }))) {
        answered.push(`${method} ${path}: ${response.statusCode}`);
      }
    }
    expect(answered).toEqual([]);
  });

  it('a write with a query parameter changes nothing', async () => {
    const name = `query-${randomUUID().slice(0, 8)}`;
    const refused = await ctx.admin({ method: 'POST', url: '/v1/admin/organizations?dry_run=1', payload: { name } });
    expect(refused.statusCode).toBe(400);
    const listed = await ctx.admin({ method: 'GET', url: '/v1/admin/organizations?limit=1000' });
    expect((listed.json().data as Array<{ name: string }>).map((organization) => organization.name)).not.toContain(name);
  });

  it('one campaign read with ?format=csv is refused, not answered as JSON', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: `/v1/advertiser/campaigns/${randomUUID()}?format=csv`, headers: { 'x-api-key': apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([{ path: 'format', message: 'unknown parameter' }]);
  });

  it('the serve through fastify ignores a cache-buster, as the direct serve does', async () => {
    const serve = (url: string) =>
      ctx.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${publisherToken}` }, payload: { placement_id: 'no-such-placement', context: { query: 'q', response: 'r' } } });
    const [plain, busted] = [await serve('/v1/serve'), await serve('/v1/serve?cb=1')];
    expect(busted.statusCode).toBe(plain.statusCode);
    expect(busted.json()).toEqual(plain.json());
  });

  it('a tracking link keeps the parameters a publisher appends', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/t/c/not-a-token?utm_source=mail' });
    expect(response.statusCode).toBe(404);
  });
});

describe('the integration-review lists take limit and offset as whole numbers, as every list does', () => {
  for (const [as, url] of [
    ['operator', '/v1/admin/integration-reviews'],
    ['publisher', '/v1/publisher/integration-reviews'],
  ] as const) {
    it(`${as}: 0x10, 1e2, 1.0, a BOM and -0 are refused`, async () => {
      for (const query of ['limit=0x10', 'limit=1e2', 'limit=1.0', 'limit=%EF%BB%BF5', 'offset=-0']) {
        const options: InjectOptions = { method: 'GET', url: `${url}?${query}` };
        const response = as === 'operator' ? await ctx.admin(options) : await ctx.app.inject({ ...options, headers: { authorization: `Bearer ${publisherToken}` } });
        expect(response.statusCode, query).toBe(400);
        expect(response.json().error.details[0].message, query).toBe('must be a whole number');
      }
      const options: InjectOptions = { method: 'GET', url: `${url}?limit=16&offset=0` };
      const good = as === 'operator' ? await ctx.admin(options) : await ctx.app.inject({ ...options, headers: { authorization: `Bearer ${publisherToken}` } });
      expect(good.statusCode).toBe(200);
    });
  }
});
