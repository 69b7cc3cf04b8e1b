import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import Fastify from 'fastify';
import { ApiError } from '../../src/http/errors.js';
import { EventStoreUnavailableError } from '../../src/store/clickhouseUnavailable.js';
import { directPixel } from '../../src/tracking/directPixel.js';
import { TRANSPARENT_GIF } from '../../src/tracking/transparentGif.js';
import { LEFT_TO_FASTIFY, startDirectRouteServer, type DirectRouteServer } from '../helpers/directRouteServer.js';

/**
 * Which pixels the direct route takes and which it leaves to fastify's route (here a stand-in that
 * answers LEFT_TO_FASTIFY), on a bare node server; the integration test compares the answers of both.
 */
let server: DirectRouteServer;
const tracked: Array<{ token: string; address: string }> = [];
const observed: Array<[number, number]> = [];
let address: string | undefined = '73.162.10.20';

beforeAll(async () => {
  const fastify = Fastify({ logger: { level: 'fatal' } });
  const route = directPixel({
    clientAddress: () => address,
    track: (token, clientAddress, _headers, answer) => {
      tracked.push({ token, address: clientAddress });
      if (token === 'full') throw new ApiError('unavailable', 'event buffer is full; retry later');
      if (token === 'bug') throw new Error('a bug');
      if (token === 'storeDown') throw new EventStoreUnavailableError(new Error('connect ECONNREFUSED'));
      if (token === 'twice') {
        answer();
        answer(new ApiError('unavailable', 'too late'));
        return;
      }
      setImmediate(() => answer(token === 'unwritable' ? new ApiError('unavailable', 'events cannot be stored right now; retry later') : undefined));
    },
    observe: (status, seconds) => observed.push([status, seconds]),
    log: fastify.log,
  });
  server = await startDirectRouteServer(route);
});
afterAll(() => server.close());

async function get(path: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}) {
  const response = await request(`${server.baseUrl}${path}`, { method, headers });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

describe('directPixel', () => {
  it('answers a pixel with the GIF and its headers in one piece, and observes it', async () => {
    tracked.length = 0;
    observed.length = 0;
    const answer = await get('/v1/t/i/AbC-_9.x?cb=1&y=%20', 'GET', { 'x-request-id': 'px-1' });
    expect(answer.status).toBe(200);
    expect(answer.body.equals(TRANSPARENT_GIF)).toBe(true);
    expect(answer.headers).toMatchObject({
      'content-type': 'image/gif',
      'content-length': String(TRANSPARENT_GIF.length),
      'cache-control': 'no-store, max-age=0',
      'cross-origin-resource-policy': 'cross-origin',
      'x-request-id': 'px-1',
    });
    expect(tracked).toEqual([{ token: 'AbC-_9.x', address: '73.162.10.20' }]);
    expect(observed.map(([status]) => status)).toEqual([200]);
  });

  it('answers 503 in the envelope with Retry-After, whether the event was refused at once or its write failed', async () => {
    for (const token of ['full', 'unwritable']) {
      const answer = await get(`/v1/t/i/${token}`);
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    }
  });

  it("answers any other error as the app's error handler does: a store that cannot be reached is 503 with Retry-After, not 500", async () => {
    const answer = await get('/v1/t/i/storeDown');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ error: { code: 'unavailable', message: 'the event store is unavailable; retry later' } });
  });

  it('answers 500 in the envelope for anything else thrown, and only the first of two answers', async () => {
    const bug = await get('/v1/t/i/bug');
    expect(bug.status).toBe(500);
    expect(JSON.parse(bug.body.toString('utf8'))).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    const twice = await get('/v1/t/i/twice');
    expect(twice.status).toBe(200);
    expect((await get('/v1/t/i/next')).status).toBe(200);
  });

  it('leaves to fastify a HEAD, another path, a token with other characters or none, one too long, and an unknown address', async () => {
    tracked.length = 0;
    expect((await get('/v1/t/i/abc', 'HEAD')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/c/abc')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/i/')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/i/?x=1')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/i/ab%41c')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/i/ab/c')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/v1/t/i/ab;c')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get('/V1/T/I/abc')).status).toBe(LEFT_TO_FASTIFY);
    expect((await get(`/v1/t/i/${'a'.repeat(2049)}`)).status).toBe(LEFT_TO_FASTIFY);
    expect((await get(`/v1/t/i/${'a'.repeat(2048)}`)).status).toBe(200);
    address = undefined;
    expect((await get('/v1/t/i/abc')).status).toBe(LEFT_TO_FASTIFY);
    address = '73.162.10.20';
    expect(tracked.map(({ token }) => token)).toEqual(['a'.repeat(2048)]);
  });
});
