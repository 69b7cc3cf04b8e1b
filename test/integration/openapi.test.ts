import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createApiKey } from '../helpers/factories.js';
import { asAdvertiser, composeBody, validCreative } from '../helpers/managementFactories.js';
import { compileStrict, contract, contractSchema } from '../helpers/contract.js';

type Operation = { requestBody?: unknown; responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> };
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

const document = contract as OpenApiDocument;
const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// Every route the app registers, seen through fastify's initialization channel: the hook is in place
// before buildApp registers anything, so routes of every plugin are listed.
const routesSeen: string[] = [];
/** The routes that take any query string (config.query 'any': tracking links, the serve), by shape. */
const anyQueryRoutes = new Set<string>();
function recordRoutes({ fastify }: { fastify: FastifyInstance }) {
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routesSeen.push(`${method} ${route.url}`);
      if (route.config?.query === 'any') for (const shape of byShape([`${method} ${route.url}`]).keys()) anyQueryRoutes.add(shape);
    }
  });
}

/**
 * The operations as "METHOD /path" with every path parameter written `{}`, so that fastify's
 * `:token` and `*` match openapi's `{token}`; mapped to a readable name for failure messages.
 */
function byShape(operations: Iterable<string>): Map<string, string> {
  const shapes = new Map<string, string>();
  for (const operation of operations) shapes.set(operation.replace(/\{[^}]*\}|:\w+|\*/g, '{}'), operation);
  return shapes;
}

/** Registered routes, less the HEAD route fastify adds by itself to every GET. */
function registeredRoutes(): Map<string, string> {
  const all = byShape(routesSeen);
  for (const shape of all.keys()) {
    if (shape.startsWith('HEAD ') && all.has(`GET ${shape.slice(5)}`)) all.delete(shape);
  }
  return all;
}

let ctx: TestContext;
beforeAll(async () => {
  diagnostics.subscribe('fastify.initialization', recordRoutes as (message: unknown) => void);
  ctx = await startTestApp();
  diagnostics.unsubscribe('fastify.initialization', recordRoutes as (message: unknown) => void);
});
afterAll(async () => {
  await ctx.close();
});

function documented(): Set<string> {
  const operations = new Set<string>();
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item).filter((key) => httpMethods.includes(key))) {
      operations.add(`${method.toUpperCase()} ${template}`);
    }
  }
  return operations;
}

function resolvePointer(pointer: string): unknown {
  if (!pointer.startsWith('#/')) throw new Error(`only local references are supported: ${pointer}`);
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
}

function escape(part: string): string {
  return part.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Checks a real response against the contract's schema for that route and status. */
function expectMatchesContract(method: string, template: string, response: LightMyRequestResponse) {
  const where = `${method} ${template} ${response.statusCode}`;
  let pointer = `#/paths/${escape(template)}/${method.toLowerCase()}/responses/${response.statusCode}`;
  const declared = resolvePointer(pointer) as { $ref?: string; content?: Record<string, unknown> } | undefined;
  expect(declared, `${where} is not in openapi.yaml`).toBeDefined();
  if (declared!.$ref) pointer = declared!.$ref;
  const content = (resolvePointer(pointer) as { content?: Record<string, unknown> }).content;
  if (response.statusCode === 204) {
    expect(content, `${where} declares a body`).toBeUndefined();
    expect(response.body).toBe('');
    return;
  }
  expect(content?.['application/json'], `${where} declares no JSON body`).toBeDefined();
  const validate = contractSchema(`${pointer}/content/application~1json/schema`);
  const body = response.json();
  expect(validate(body) ? [] : validate.errors, `${where}: ${JSON.stringify(body)}`).toEqual([]);
}

describe('openapi.yaml', () => {
  it('parses as OpenAPI 3.1', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths).length).toBeGreaterThan(0);
  });

  it('compiles every schema in ajv strict mode: no key that is not a JSON Schema keyword', () => {
    const pointers: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        const at = `${pointer}/${escape(key)}`;
        if (key === 'schema' || pointer === '#/components/schemas') pointers.push(at);
        else walk(value, at);
      }
    };
    walk(document, '#');
    expect(pointers.length).toBeGreaterThan(50);
    const refused = pointers.flatMap((pointer) => {
      try {
        contractSchema(pointer);
        return [];
      } catch (error) {
        return [`${pointer}: ${(error as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  });

  it('refuses in strict mode the stray key an unquoted description with a comma leaves in a flow mapping', () => {
    const cut = parse("{ type: object, properties: { user_id: { type: string, description: Must be a member, else 403 forbidden } } }");
    expect(Object.keys(cut.properties.user_id)).toContain('else 403 forbidden');
    expect(() => compileStrict(cut)).toThrow(/unknown keyword: "else 403 forbidden"/);
  });

  it('has a target for every $ref', () => {
    const broken: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && resolvePointer(value) === undefined) broken.push(value);
        else walk(value);
      }
    };
    walk(document);
    expect(broken).toEqual([]);
  });

  it('holds the schemas the spec names', () => {
    for (const name of ['CampaignInput', 'LineItemInput', 'AdvertiserReportingResponse', 'AdvertiserCampaignRow', 'Error']) {
      expect(document.components.schemas?.[name], name).toBeDefined();
    }
  });

  it('is served at GET /openapi.yaml as committed', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/openapi.yaml' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/yaml/);
    expect(parse(response.body)).toEqual(document);
  });

  it('documents every registered route', () => {
    const inContract = byShape(documented());
    const missing = [...registeredRoutes()].filter(([shape]) => !inContract.has(shape)).map(([, route]) => route);
    expect(missing.sort(), `routes missing from openapi.yaml:\n${missing.join('\n')}`).toEqual([]);
  });

  it('lists 400, 413, 415 and 503 on every operation that answers them, so that a new route cannot miss them', async () => {
    // A DELETE that takes no body, sent one it cannot read (spec41 S6's follow-up: not listed before).
    const textBody = await ctx.admin({ method: 'DELETE', url: '/v1/admin/api-keys/00000000-0000-4000-8000-000000000000', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect([textBody.statusCode, textBody.json().error.code]).toEqual([415, 'unsupported_media_type']);
    // Every /v1 route answers 400 to a query parameter it does not read (refuseUnreadQueries, or its
    // own strict query schema) unless it takes any query; every body is answered 400 when it is not
    // JSON (or UTF-8), 413 over the body limit, 415 in another media type or encoding, on every
    // method but GET: fastify reads what a DELETE or a POST that takes no body is sent too. Every /v1
    // route but serving (its in-memory index) and the two tracking links (their own 503) asks
    // Postgres for its caller's key or token, so answers 503 when Postgres cannot answer.
    const withoutPostgres = new Set(['POST /v1/serve', 'GET /v1/t/i/{token}', 'GET /v1/t/c/{token}']);
    const missing: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      if (!template.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(item).filter(([key]) => httpMethods.includes(key))) {
        const name = `${method.toUpperCase()} ${template}`;
        const takesAnyQuery = anyQueryRoutes.has([...byShape([name]).keys()][0]!);
        const expected: Record<string, string> = operation.requestBody || method !== 'get'
          ? { '400': 'BadRequest', '413': 'PayloadTooLarge', '415': 'UnsupportedMediaType' }
          : takesAnyQuery
            ? {}
            : { '400': 'BadRequest' };
        if (!withoutPostgres.has(name)) expected['503'] = 'Unavailable';
        // The shared response, or one of the operation's own that says more (the NDJSON import's 415).
        for (const [status, response] of Object.entries(expected)) {
          const listed = operation.responses?.[status];
          if (!listed || (listed.$ref !== undefined && listed.$ref !== `#/components/responses/${response}`)) missing.push(`${name} ${status}`);
        }
      }
    }
    expect(anyQueryRoutes.size).toBeGreaterThan(0);
    expect(missing, `operations of openapi.yaml without the shared response:\n${missing.join('\n')}`).toEqual([]);
  });

  it('documents Idempotency-Key and Idempotent-Replayed on the advertiser and admin creates that keep their answer, and only there', () => {
    const keyParameters = ['#/components/parameters/IdempotencyKey', '#/components/parameters/AdminIdempotencyKey'];
    const keyed: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item).filter(([key]) => httpMethods.includes(key))) {
        const { parameters = [] } = operation as { parameters?: { $ref?: string }[] };
        const key = parameters.find((parameter) => keyParameters.includes(parameter.$ref ?? ''));
        if (!key) continue;
        keyed.push(`${method.toUpperCase()} ${template}`);
        expect(key.$ref, `${method} ${template}`).toBe(template.startsWith('/v1/admin/') ? keyParameters[1] : keyParameters[0]);
        const created = operation.responses?.['201'] as { headers?: Record<string, { $ref?: string }> } | undefined;
        expect(created?.headers?.['Idempotent-Replayed']?.$ref, `${method} ${template}`).toBe('#/components/headers/IdempotentReplayed');
      }
    }
    // A conversion's own conversion_id makes its resend safe (tracking.md), not this key.
    // Adding a user is not keyed: it finds the user with that email, so sent twice it ends the same.
    expect(keyed.sort()).toEqual([
      'POST /v1/admin/organizations',
      'POST /v1/admin/organizations/{org_id}/api-keys',
      'POST /v1/admin/publishers',
      'POST /v1/admin/publishers/{publisher_id}/placements',
      'POST /v1/admin/publishers/{publisher_id}/tokens',
      'POST /v1/advertiser/campaigns',
      'POST /v1/advertiser/campaigns/compose',
      'POST /v1/advertiser/campaigns/{id}/duplicate',
      'POST /v1/advertiser/campaigns/{id}/line-items',
      'POST /v1/advertiser/line-items/{id}/creatives',
    ]);
  });

  it('documents only registered routes', () => {
    const registered = registeredRoutes();
    expect(registered.size).toBeGreaterThan(0);
    const stale = [...byShape(documented())].filter(([shape]) => !registered.has(shape)).map(([, operation]) => operation);
    expect(stale.sort(), `openapi.yaml operations with no route:\n${stale.join('\n')}`).toEqual([]);
  });
});

describe('admin creates with an Idempotency-Key match openapi.yaml', () => {
  it('a replayed API key, the key reused with another body, and a replay under another admin token', async () => {
    const { organization } = await createAdvertiser(ctx);
    const template = '/v1/admin/organizations/{org_id}/api-keys';
    // Operators' keys have one scope for the whole database, which a server run shares with other files.
    const key = randomUUID();
    const keyed = (on: TestContext, permissions: string[]) =>
      on.admin({ method: 'POST', url: `/v1/admin/organizations/${organization.id}/api-keys`, headers: { 'idempotency-key': key }, payload: { permissions } });
    expect((await keyed(ctx, ['campaigns'])).statusCode).toBe(201);
    const replayed = await keyed(ctx, ['campaigns']);
    expect([replayed.statusCode, replayed.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expectMatchesContract('POST', template, replayed);
    const reused = await keyed(ctx, ['reporting']);
    expect(reused.statusCode).toBe(422);
    expectMatchesContract('POST', template, reused);
    const rotated = await startAnotherInstance(ctx, { ADMIN_TOKEN: 'test-admin-token-rotated-0123456789' });
    try {
      const sealed = await keyed(rotated, ['campaigns']);
      expect(sealed.statusCode).toBe(409);
      expectMatchesContract('POST', template, sealed);
    } finally {
      await rotated.close();
    }
  });
});

describe('management responses match openapi.yaml', () => {
  it('on every management route, success and error', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const check = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', template: string, url: string, payload?: object) => {
      const response = await api(method, url, payload);
      expectMatchesContract(method, template, response);
      return response;
    };

    const created = await check('POST', '/v1/advertiser/campaigns', '/v1/advertiser/campaigns', {
      name: 'Contract',
      brand_name: 'Acme',
      user_id: advertiser.user.id,
      objective: 'traffic',
    });
    expect(created.statusCode).toBe(201);
    const campaignId = created.json().data.id as string;
    // A create sent again with its Idempotency-Key: the kept answer, and the key with another body.
    const keyed = (payload: object) =>
      ctx.app.inject({ method: 'POST', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key, 'idempotency-key': 'contract-key' }, payload });
    const once = { name: 'Once', brand_name: 'Acme', user_id: advertiser.user.id };
    expect((await keyed(once)).statusCode).toBe(201);
    const replayed = await keyed(once);
    expect([replayed.statusCode, replayed.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expectMatchesContract('POST', '/v1/advertiser/campaigns', replayed);
    const reused = await keyed({ ...once, name: 'Other' });
    expect(reused.statusCode).toBe(422);
    expectMatchesContract('POST', '/v1/advertiser/campaigns', reused);
    const byId = '/v1/advertiser/campaigns/{id}';
    expect((await check('GET', byId, `/v1/advertiser/campaigns/${campaignId}`)).statusCode).toBe(200);
    expect((await check('PATCH', byId, `/v1/advertiser/campaigns/${campaignId}`, { objective: null })).statusCode).toBe(200);
    expect((await check('GET', '/v1/advertiser/campaigns', '/v1/advertiser/campaigns?limit=1')).statusCode).toBe(200);

    const validated = await check('POST', '/v1/advertiser/campaigns/validate', '/v1/advertiser/campaigns/validate', composeBody(advertiser.user.id));
    expect(validated.statusCode).toBe(200);
    const lineItemOnly = await check('POST', '/v1/advertiser/campaigns/validate', '/v1/advertiser/campaigns/validate', {
      line_item: { title: 'x', targeting: { languages: ['en'] }, creatives: [validCreative] },
    });
    expect(lineItemOnly.statusCode).toBe(200);
    const composed = await check('POST', '/v1/advertiser/campaigns/compose', '/v1/advertiser/campaigns/compose', composeBody(advertiser.user.id));
    expect(composed.statusCode).toBe(201);

    const lineItems = '/v1/advertiser/campaigns/{id}/line-items';
    const lineItem = await check('POST', lineItems, `/v1/advertiser/campaigns/${campaignId}/line-items`, {
      title: 'Everything',
      objective: 'conversions',
      primary_kpi: 'conversions',
      budget: { daily: 10, currency: 'eur' },
      bids: { bid_type: 'cpa', bid_value: 3 },
      targeting: { keywords: { include: ['a'], exclude: ['b'] }, placements: { include: ['p-1'] }, languages: ['en'] },
      creatives: [validCreative, { ...validCreative, image_url: 'https://cdn.example.com/i.png' }],
    });
    expect(lineItem.statusCode).toBe(201);
    const lineItemId = lineItem.json().data.id as string;
    const bare = await check('POST', lineItems, `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' });
    expect((await check('GET', lineItems, `/v1/advertiser/campaigns/${campaignId}/line-items`)).statusCode).toBe(200);

    const lineItemById = '/v1/advertiser/line-items/{id}';
    expect((await check('GET', lineItemById, `/v1/advertiser/line-items/${lineItemId}`)).statusCode).toBe(200);
    expect((await check('PATCH', lineItemById, `/v1/advertiser/line-items/${lineItemId}`, { primary_kpi: null })).statusCode).toBe(200);
    const budget = `/v1/advertiser/line-items/${bare.json().data.id}/budget`;
    expect((await check('PUT', '/v1/advertiser/line-items/{id}/budget', budget, { daily: 1.5, currency: 'USD' })).statusCode).toBe(200);
    const bids = `/v1/advertiser/line-items/${bare.json().data.id}/bids`;
    expect((await check('PUT', '/v1/advertiser/line-items/{id}/bids', bids, { bid_type: 'cpm', bid_value: 2 })).statusCode).toBe(200);
    const targeting = `/v1/advertiser/line-items/${lineItemId}/targeting`;
    expect((await check('PUT', '/v1/advertiser/line-items/{id}/targeting', targeting, {})).statusCode).toBe(200);
    const creatives = `/v1/advertiser/line-items/${lineItemId}/creatives`;
    expect((await check('POST', '/v1/advertiser/line-items/{id}/creatives', creatives, { creatives: [validCreative] })).statusCode).toBe(201);
    const preview = `/v1/advertiser/line-items/${lineItemId}/match-preview`;
    expect((await check('POST', '/v1/advertiser/line-items/{id}/match-preview', preview, { context: { query: 'fast laptops?', response: '' } })).statusCode).toBe(200);
    expect((await check('POST', '/v1/advertiser/line-items/{id}/match-preview', preview, { context: { query: 1 } })).statusCode).toBe(422);

    const activate = '/v1/advertiser/campaigns/{id}/activate';
    expect((await check('POST', activate, `/v1/advertiser/campaigns/${campaignId}/activate`)).statusCode).toBe(200);
    const duplicate = '/v1/advertiser/campaigns/{id}/duplicate';
    expect((await check('POST', duplicate, `/v1/advertiser/campaigns/${campaignId}/duplicate`)).statusCode).toBe(201);
    expect((await check('DELETE', byId, `/v1/advertiser/campaigns/${campaignId}`)).statusCode).toBe(204);

    // errors: every one answers the Error envelope its status declares
    expect((await check('GET', byId, `/v1/advertiser/campaigns/${campaignId}`)).statusCode).toBe(404);
    expect((await check('POST', '/v1/advertiser/campaigns', '/v1/advertiser/campaigns', {})).statusCode).toBe(422);
    expect((await check('GET', '/v1/advertiser/campaigns', '/v1/advertiser/campaigns?limit=0')).statusCode).toBe(400);
    const outsider = await createAdvertiser(ctx);
    expect((await check('POST', '/v1/advertiser/campaigns/compose', '/v1/advertiser/campaigns/compose', composeBody(outsider.user.id))).statusCode).toBe(403);
    const emptyCampaign = await api('POST', '/v1/advertiser/campaigns', { name: 'n', brand_name: 'b', user_id: advertiser.user.id });
    expect((await check('POST', activate, `/v1/advertiser/campaigns/${emptyCampaign.json().data.id}/activate`)).statusCode).toBe(422);
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/campaigns' });
    expectMatchesContract('GET', '/v1/advertiser/campaigns', anonymous);
    const reportingKey = await createApiKey(ctx, advertiser.organization.id, ['reporting']);
    const forbidden = await asAdvertiser(ctx, reportingKey.key)('POST', '/v1/advertiser/campaigns', { name: 'n' });
    expect(forbidden.statusCode).toBe(403);
    expectMatchesContract('POST', '/v1/advertiser/campaigns', forbidden);
  });
});
