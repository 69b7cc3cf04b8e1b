import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loggerOptions } from '../../src/http/requestLogging.js';
import { startAnotherInstance, startTestApp, testConfig, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';

let ctx: TestContext;
let port: number;
beforeAll(async () => {
  ctx = await startTestApp();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as { port: number }).port;
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

describe('POST routes without a body take none or {}', () => {
  it('answers 422 to null, a string, an array, a deep array or a field, and acts only on no body or {}', async () => {
    const publisher = await createPublisher(ctx);
    const placement = await createPlacement(ctx, publisher.id);
    await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement.id}/certify`, payload: {} });
    const liveTokens = async () => (await ctx.stores.db.query('SELECT 1 FROM publisher_tokens WHERE publisher_id = $1 AND revoked_at IS NULL', [publisher.id])).rows.length;
    const before = await liveTokens();
    const bodies = ['null', '"x"', '[1,2]', `${'['.repeat(2000)}${']'.repeat(2000)}`, '{"reason_typo":1}'];
    for (const body of bodies) {
      const json = { 'content-type': 'application/json' };
      const tokens = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/tokens`, payload: body, headers: json });
      expect([tokens.statusCode, tokens.json().error?.code], body.slice(0, 20)).toEqual([422, 'validation_error']);
      const revoke = await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement.id}/revoke`, payload: body, headers: json });
      expect([revoke.statusCode, revoke.json().error?.code], body.slice(0, 20)).toEqual([422, 'validation_error']);
    }
    expect(await liveTokens()).toBe(before);
    expect((await placementState(placement.id)).certification).toBe('certified');
    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/tokens` })).statusCode).toBe(201);
    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/tokens`, payload: {} })).statusCode).toBe(201);
  });
});

/**
 * Writes `chunks` to a fresh connection and collects what the server answers until it closes the
 * connection. Never sends more than given: a test that needs the server to close first waits here.
 */
function rawExchange(chunks: string[], to = port): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.on('connect', () => chunks.forEach((chunk) => socket.write(chunk)));
  });
}

describe('routes with credentials authenticate before the body is read', () => {
  it('answers 401, not 400, to unauthenticated malformed JSON on admin, management and publisher routes', async () => {
    for (const url of ['/v1/admin/organizations', '/v1/advertiser/campaigns', '/v1/advertiser/conversions', '/v1/publisher/integration-reviews']) {
      const response = await ctx.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
      expect(response.statusCode, url).toBe(401);
      expect(response.json(), url).toEqual({ error: { code: 'auth_missing', message: expect.any(String) } });
    }
  });

  it('answers 401 and closes the connection while an unauthenticated body is still arriving', { timeout: 10_000 }, async () => {
    for (const [url, auth] of [
      ['/v1/admin/organizations', 'authorization: Bearer wrong-token\r\n'],
      ['/v1/advertiser/campaigns', 'x-api-key: ak_wrong\r\n'],
    ] as const) {
      const head = `POST ${url} HTTP/1.1\r\nHost: x\r\n${auth}content-type: application/json\r\ncontent-length: 100000\r\n\r\n`;
      const answer = await rawExchange([head, '{"name": "only the first bytes']);
      expect(answer.status, url).toBe(401);
      expect(JSON.parse(answer.body).error.code, url).toBe('auth_invalid');
    }
  });
});

describe('a body that is not JSON answers 415', () => {
  it('answers unsupported_media_type for text/plain on admin and management routes, and creates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const name = `text-${randomUUID()}`;
    const cases = [
      ctx.admin({ method: 'POST', url: '/v1/admin/organizations', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify({ name }) }),
      ctx.app.inject({
        method: 'POST',
        url: '/v1/advertiser/campaigns',
        headers: { 'content-type': 'text/plain', 'x-api-key': advertiser.key },
        payload: JSON.stringify({ name, brand_name: 'b', user_id: advertiser.user.id }),
      }),
    ];
    for (const response of await Promise.all(cases)) {
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
    }
    const stored = await ctx.stores.db.query('SELECT 1 FROM organizations WHERE name = $1 UNION ALL SELECT 1 FROM campaigns WHERE name = $1', [name]);
    expect(stored.rows).toEqual([]);
  });
});

describe('errors raised before a route runs use the envelope', () => {
  it('manages a placement whose id has the longest length an id may have (128 characters)', async () => {
    const publisher = await createPublisher(ctx);
    const id = `${randomUUID()}${'p'.repeat(128 - 36)}`;
    await createPlacement(ctx, publisher.id, id);
    const answers = [
      await ctx.admin({ method: 'GET', url: `/v1/admin/placements/${id}` }),
      await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${id}/certify` }),
      await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${id}/revoke` }),
      await ctx.app.inject({ method: 'GET', url: `/v1/publisher/placements/${id}/recent-impressions`, headers: { authorization: `Bearer ${publisher.token}` } }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect((await placementState(id)).certification).toBe('revoked');
  });

  it('answers 404 not_found for a path id over 128 characters or one that does not decode', async () => {
    const advertiser = await createAdvertiser(ctx);
    const long = 'a'.repeat(129);
    const cases = [
      ctx.app.inject({ method: 'GET', url: `/v1/advertiser/campaigns/${long}`, headers: { 'x-api-key': advertiser.key } }),
      ctx.admin({ method: 'GET', url: `/v1/admin/placements/${long}` }),
      ctx.admin({ method: 'GET', url: '/v1/admin/placements/%E0%A4%A' }),
    ];
    for (const response of await Promise.all(cases)) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    }
  });

  it('answers 404 not_found to a method no route has (QUERY) and to an unknown path, without reading its body', async () => {
    const cases: Array<{ method: string; url: string; payload?: string }> = [
      { method: 'QUERY', url: '/v1/advertiser/campaigns' },
      { method: 'QUERY', url: '/nope', payload: '{"q":1}' },
      { method: 'POST', url: '/nope', payload: '{' },
    ];
    for (const { method, url, payload } of cases) {
      const headers = payload === undefined ? {} : { 'content-type': 'application/json' };
      const response = await ctx.app.inject({ method: method as 'POST', url, headers, payload });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: `no route for ${method} ${url}` } });
    }
  });

  it('answers 431 headers_too_large in the envelope for headers over 16 KB', { timeout: 10_000 }, async () => {
    const answer = await rawExchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nx-padding: ${'p'.repeat(17 * 1024)}\r\n\r\n`]);
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'headers_too_large', message: expect.any(String) } });
  });

  it('answers 408 request_timeout in the envelope when a body does not arrive within REQUEST_TIMEOUT_MS, and closes', { timeout: 20_000 }, async () => {
    const impatient = await startAnotherInstance(ctx, { REQUEST_TIMEOUT_MS: '1000' });
    try {
      await impatient.app.listen({ port: 0, host: '127.0.0.1' });
      const impatientPort = (impatient.app.server.address() as { port: number }).port;
      // Authenticated, so the route waits for the body: its first bytes, then nothing more.
      const head = `POST /v1/admin/organizations HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${ctx.secrets.adminToken}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n`;
      const answer = await rawExchange([head, '{"name": "only the first bytes'], impatientPort);
      expect(answer.status).toBe(408);
      expect(answer.headers).toMatch(/connection: close/i);
      expect(JSON.parse(answer.body)).toEqual({ error: { code: 'request_timeout', message: expect.any(String) } });
    } finally {
      await impatient.close();
    }
  });

  it('answers 400 bad_request in the envelope for malformed HTTP', { timeout: 10_000 }, async () => {
    const answer = await rawExchange(['GET /healthz HTTP/1.1\r\nHost: x\r\nbroken header line\r\n\r\n']);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'bad_request', message: expect.any(String) } });
  });
});

describe('reporting offset has no maximum', () => {
  it('accepts any whole offset a number holds exactly, answering an empty page past the end', async () => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    for (const breakdown of ['campaign', 'daily']) {
      for (const offset of [1_000_000_000, Number.MAX_SAFE_INTEGER]) {
        const response = await ctx.app.inject({
          method: 'GET',
          url: `/v1/advertiser/reporting/campaigns?breakdown=${breakdown}&offset=${offset}`,
          headers: { 'x-api-key': advertiser.key },
        });
        expect(response.statusCode, `${breakdown} ${offset}`).toBe(200);
        expect(response.json()).toMatchObject({ data: [], pagination: { offset, total: 0, has_more: false } });
      }
    }
    const traffic = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/traffic-quality?offset=1000000000', headers: { 'x-api-key': advertiser.key } });
    expect(traffic.statusCode).toBe(200);
    const tooLarge = await ctx.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/campaigns?offset=9007199254740992', headers: { 'x-api-key': advertiser.key } });
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'offset' }] });
  });
});

describe('the request log keeps credentials out of URLs', () => {
  it('redacts credential-looking query parameters and keeps the others', async () => {
    const lines: string[] = [];
    const dataDir = mkdtempSync(path.join(tmpdir(), 'adsvc-log-'));
    const config = testConfig(dataDir);
    const logged = await buildApp({
      config,
      db: ctx.stores.db,
      ch: ctx.stores.ch,
      secrets: ctx.secrets,
      logger: { ...loggerOptions('info'), stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      const query = 'api_key=SECRET-1&token=SECRET-2&access_token=SECRET-3&password=SECRET-4&x%2Dapi%2Dkey=SECRET-5&client_secret=SECRET-6&page=2';
      const response = await logged.inject({ method: 'GET', url: `/v1/advertiser/campaigns?${query}` });
      expect(response.statusCode).toBe(401);
      const urls = lines.map((line) => JSON.parse(line)).flatMap((entry) => (entry.req?.url ? [entry.req.url] : []));
      expect(urls.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain('SECRET-');
      expect(urls[0]).toBe(
        '/v1/advertiser/campaigns?api_key=[REDACTED]&token=[REDACTED]&access_token=[REDACTED]&password=[REDACTED]&x%2Dapi%2Dkey=[REDACTED]&client_secret=[REDACTED]&page=2',
      );
    } finally {
      await logged.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
