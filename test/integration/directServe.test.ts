import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { creative, serve, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { metricSample } from '../helpers/metricSample.js';
import { verifyTrackingToken } from '../../src/tracking/trackingToken.js';

/**
 * POST /v1/serve over a real connection is answered before fastify (src/serving/directServe.ts)
 * whenever it can be; app.inject() always reaches the fastify route. The two must answer every
 * request the same: status, body (the serve's own id and token aside), content type and request id.
 */
let ctx: TestContext;
let baseUrl: string;
let publisher: { id: string; token: string };
let otherPublisher: { id: string; token: string };
let placementId: string;
let otherPlacementId: string;
const word = uniqueWord('direct');

beforeAll(async () => {
  ctx = await startTestApp();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;
  const created = await createAdvertiser(ctx);
  publisher = await createPublisher(ctx);
  otherPublisher = await createPublisher(ctx);
  placementId = (await createPlacement(ctx, publisher.id)).id;
  otherPlacementId = (await createPlacement(ctx, otherPublisher.id)).id;
  await servableLineItem(ctx, created, { targeting: { keywords: { include: [word] } }, creatives: [creative('Direct card')] });
  await eventually(async () => ((await serve(ctx, publisher.token, about(word))).json().ad ? true : undefined), 'the line item in the index');
});
afterAll(async () => {
  await ctx.close();
});

function about(text: string, extra: object = {}) {
  return { placement_id: placementId, context: { query: `tell me about ${text}`, response: `Here is what I know about ${text}.` }, ...extra };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The same request over HTTP (the direct path when it qualifies) and through inject (the fastify route). */
async function both(headers: Record<string, string>, body: string | Buffer): Promise<[Answer, Answer]> {
  const overHttp = await request(`${baseUrl}/v1/serve`, { method: 'POST', headers, body });
  const direct = { status: overHttp.statusCode, headers: overHttp.headers, body: await overHttp.body.text() };
  const injected = await ctx.app.inject({ method: 'POST', url: '/v1/serve', headers, payload: body });
  return [direct, { status: injected.statusCode, headers: injected.headers as Answer['headers'], body: injected.body }];
}

/** The body with the serve's id and token (new on every serve) replaced, after checking the links verify. */
function comparable(answer: Answer): unknown {
  const parsed = JSON.parse(answer.body) as { ad?: { id: string; tracking: { impression_url: string; click_url: string } } | null };
  if (!parsed.ad) return parsed;
  const token = parsed.ad.tracking.impression_url.split('/').pop()!;
  const verdict = verifyTrackingToken(token, ctx.secrets.trackingSecret);
  expect(verdict.valid).toBe(true);
  if (verdict.valid) expect(verdict.claims.s).toBe(parsed.ad.id);
  return {
    ...parsed,
    ad: { ...parsed.ad, id: 'ID', tracking: { impression_url: parsed.ad.tracking.impression_url.replace(token, 'T'), click_url: parsed.ad.tracking.click_url.replace(token, 'T') } },
  };
}

async function expectSame(headers: Record<string, string>, body: string | Buffer, status: number): Promise<Answer> {
  const [direct, routed] = await both(headers, body);
  expect(direct.status).toBe(status);
  expect(routed.status).toBe(status);
  expect(comparable(direct)).toEqual(comparable(routed));
  expect(direct.headers['content-type']).toBe(routed.headers['content-type']);
  expect(direct.headers['content-length']).toBe(String(Buffer.byteLength(direct.body)));
  expect(direct.headers['x-request-id']).toMatch(/^[\w-]{1,64}$/);
  expect(direct.headers['retry-after']).toBe(routed.headers['retry-after']);
  return direct;
}

const auth = () => ({ ...JSON_TYPE, authorization: `Bearer ${publisher.token}` });

describe('POST /v1/serve over HTTP answers as the fastify route does', () => {
  it('an ad, with links that verify', async () => {
    const direct = await expectSame(auth(), JSON.stringify(about(word)), 200);
    expect(JSON.parse(direct.body).ad.render.title).toBe('Direct card');
  });

  it('no ad, an explained serve, a declared bot, and the content type with its charset', async () => {
    await expectSame(auth(), JSON.stringify(about('nothing anyone targets')), 200);
    await expectSame(auth(), JSON.stringify(about(word, { explain: true })), 200);
    await expectSame(auth(), JSON.stringify(about('nothing', { explain: true })), 200);
    await expectSame(auth(), JSON.stringify(about(word, { user: { user_agent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' } })), 200);
    await expectSame({ ...auth(), 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(about(word)), 200);
    await expectSame({ ...auth(), 'content-type': 'Application/JSON; charset=UTF-8' }, JSON.stringify(about(word)), 200);
  });

  it('bad bodies: malformed JSON, bytes that are not UTF-8, an empty body, a poisoned prototype, an unknown field, a wrong type', async () => {
    await expectSame(auth(), '{"placement_id": ', 400);
    await expectSame(auth(), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), 400);
    const empty = await expectSame(auth(), '', 422);
    expect(JSON.parse(empty.body).error.details.map((detail: { path: string }) => detail.path)).toContain('placement_id');
    await expectSame(auth(), '{"__proto__": {"x": 1}, "placement_id": "p"}', 400);
    await expectSame(auth(), '{"constructor": {"prototype": {"x": 1}}}', 400);
    await expectSame(auth(), JSON.stringify({ ...about(word), extra: 1 }), 422);
    await expectSame(auth(), JSON.stringify({ placement_id: placementId, context: { query: 5, response: 'x' } }), 422);
    await expectSame(auth(), '"just a string"', 422);
  });

  it("a placement of another publisher or none is 404, another publisher's token on its own placement serves", async () => {
    await expectSame(auth(), JSON.stringify({ ...about(word), placement_id: otherPlacementId }), 404);
    await expectSame(auth(), JSON.stringify({ ...about(word), placement_id: 'no-such-placement' }), 404);
    await expectSame({ ...JSON_TYPE, authorization: `Bearer ${otherPublisher.token}` }, JSON.stringify({ ...about(word), placement_id: otherPlacementId }), 200);
  });

  it('what the direct path leaves to fastify: no token, an unknown token, another charset, another type, a body over the limit', async () => {
    await expectSame(JSON_TYPE, JSON.stringify(about(word)), 401);
    await expectSame({ ...JSON_TYPE, authorization: 'Bearer not-a-token' }, JSON.stringify(about(word)), 401);
    await expectSame({ ...auth(), 'content-type': 'application/json; charset=latin1' }, JSON.stringify(about(word)), 415);
    await expectSame({ ...auth(), 'content-type': 'text/plain' }, JSON.stringify(about(word)), 415);
    await expectSame(auth(), JSON.stringify(about('x'.repeat(140 * 1024))), 413);
  });

  it('a chunked body (no content-length) is served as well', async () => {
    const body = JSON.stringify(about(word));
    const response = await request(`${baseUrl}/v1/serve`, {
      method: 'POST',
      headers: auth(),
      body: Readable.from([body.slice(0, 10), body.slice(10)]),
    });
    expect(response.headers['transfer-encoding']).toBeUndefined();
    expect(response.statusCode).toBe(200);
    expect((await response.body.json()) as object).toMatchObject({ ad: { render: { title: 'Direct card' } } });
  });

  it('a connection cut in the middle of a body costs nothing but itself', async () => {
    const { port } = new URL(baseUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /v1/serve HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${publisher.token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"placement_id"`);
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await expectSame(auth(), JSON.stringify(about(word)), 200);
  });

  it('a serve whose body does not arrive within REQUEST_TIMEOUT_MS is answered 408 in the envelope and closed', { timeout: 20_000 }, async () => {
    const impatient = await startAnotherInstance(ctx, { REQUEST_TIMEOUT_MS: '1000' });
    try {
      await impatient.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (impatient.app.server.address() as { port: number }).port;
      const answer = await new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`POST /v1/serve HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${publisher.token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"placement_id"`);
        });
        socket.on('data', (chunk) => (received += chunk.toString('utf8')));
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/connection: close/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'request_timeout', message: expect.any(String) } });
    } finally {
      await impatient.close();
    }
  });

  it("echoes the caller's x-request-id, or gives a new one", async () => {
    const given = await request(`${baseUrl}/v1/serve`, { method: 'POST', headers: { ...auth(), 'x-request-id': 'trace-42_a' }, body: JSON.stringify(about(word)) });
    await given.body.dump();
    expect(given.headers['x-request-id']).toBe('trace-42_a');
    const refused = await request(`${baseUrl}/v1/serve`, { method: 'POST', headers: { ...auth(), 'x-request-id': 'has spaces' }, body: JSON.stringify(about(word)) });
    await refused.body.dump();
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('counts each answer in the request-duration histogram under the route, method and status', async () => {
    const count = (status: number) => metricSample(ctx, `adsvc_http_request_duration_seconds_count{route="/v1/serve",method="POST",status_code="${status}"}`);
    const [ok, notFound] = [await count(200), await count(404)];
    for (let i = 0; i < 3; i++) {
      const response = await request(`${baseUrl}/v1/serve`, { method: 'POST', headers: auth(), body: JSON.stringify(about(word)) });
      await response.body.dump();
    }
    const missing = await request(`${baseUrl}/v1/serve`, { method: 'POST', headers: auth(), body: JSON.stringify({ ...about(word), placement_id: 'no-such-placement' }) });
    await missing.body.dump();
    expect(await count(200)).toBe(ok + 3);
    expect(await count(404)).toBe(notFound + 1);
  });
});
