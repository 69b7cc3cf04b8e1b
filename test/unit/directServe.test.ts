import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import Fastify from 'fastify';
import { ApiError } from '../../src/http/errors.js';
import { jsonBodyReader } from '../../src/http/jsonBody.js';
import { StoreUnavailableError } from '../../src/store/storeUnavailable.js';
import { directServe } from '../../src/serving/directServe.js';
import { LEFT_TO_FASTIFY, startDirectRouteServer, type DirectRouteServer } from '../helpers/directRouteServer.js';

/**
 * Which requests the direct serve takes and which it leaves to fastify's route (here a stand-in
 * that answers LEFT_TO_FASTIFY), on a bare node server: the integration test compares the answers of both.
 */
let server: DirectRouteServer;
const answered: Array<{ input: unknown; publisherId: string }> = [];
const observed: Array<[number, number]> = [];
let taking = true;

beforeAll(async () => {
  const fastify = Fastify({ logger: { level: 'fatal' } });
  const route = directServe({
    bodyLimit: 1000,
    readJsonBody: jsonBodyReader(fastify),
    publisherOf: (token) => {
      if (token === 'throws') throw new Error('an index that cannot answer');
      return token === 'good' ? 'publisher-1' : undefined;
    },
    answer: (input, publisherId) => {
      answered.push({ input, publisherId });
      if ((input as { fail?: string } | undefined)?.fail === 'gone') throw new ApiError('not_found', 'placement not found');
      if ((input as { fail?: string } | undefined)?.fail === 'bug') throw new Error('a bug');
      if ((input as { fail?: string } | undefined)?.fail === 'storeDown') throw new StoreUnavailableError(new Error('connect ECONNREFUSED'));
      return (input as { text?: boolean } | undefined)?.text ? '{"ad":"written"}' : { ad: null };
    },
    observe: (status, seconds) => observed.push([status, seconds]),
    taking: () => taking,
    log: fastify.log,
  });
  server = await startDirectRouteServer(route);
});
afterAll(() => server.close());

const good = { authorization: 'Bearer good', 'content-type': 'application/json' };

async function post(headers: Record<string, string>, body: string, path = '/v1/serve', method = 'POST') {
  const response = await request(`${server.baseUrl}${path}`, { method: method as 'POST', headers, body: method === 'GET' ? undefined : body });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

describe('directServe', () => {
  it('answers a serve with a known token and a JSON body of a declared length', async () => {
    answered.length = 0;
    observed.length = 0;
    const written = await post({ ...good, 'x-request-id': 'req-1' }, '{"text": true}');
    expect(written).toMatchObject({ status: 200, body: '{"ad":"written"}' });
    expect(written.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'content-length': '16', 'x-request-id': 'req-1' });
    expect(await post(good, '{"placement_id": "p"}')).toMatchObject({ status: 200, body: '{"ad":null}' });
    expect(answered).toEqual([
      { input: { text: true }, publisherId: 'publisher-1' },
      { input: { placement_id: 'p' }, publisherId: 'publisher-1' },
    ]);
    expect(observed.map(([status]) => status)).toEqual([200, 200]);
  });

  it("answers errors in the envelope as the app's error handler does: the ApiError as thrown, a store that cannot be reached 503, anything else 500, bad JSON 400", async () => {
    expect(await post(good, '{"fail": "gone"}')).toMatchObject({ status: 404, body: '{"error":{"code":"not_found","message":"placement not found"}}' });
    const storeDown = await post(good, '{"fail": "storeDown"}');
    expect(storeDown).toMatchObject({ status: 503, body: '{"error":{"code":"unavailable","message":"the database is unavailable; retry later"}}' });
    expect(storeDown.headers['retry-after']).toBe('5');
    expect(await post(good, '{"fail": "bug"}')).toMatchObject({ status: 500, body: '{"error":{"code":"internal_error","message":"internal error"}}' });
    expect(await post(good, '{"fail": ')).toMatchObject({ status: 400, body: '{"error":{"code":"bad_request","message":"request body is not valid JSON"}}' });
  });

  it('leaves to fastify what it does not take', async () => {
    answered.length = 0;
    const declined = [
      await post({ 'content-type': 'application/json' }, '{}'),
      await post({ ...good, authorization: 'Bearer unknown' }, '{}'),
      await post({ ...good, authorization: 'Bearer throws' }, '{}'),
      await post({ ...good, authorization: 'Basic good' }, '{}'),
      await post({ ...good, 'content-type': 'application/json; charset=latin1' }, '{}'),
      await post({ ...good, 'content-type': 'text/plain' }, '{}'),
      await post(good, 'x'.repeat(1001)),
      await post(good, '{}', '/v1/serve?x=1'),
      await post(good, '{}', '/v1/serve/'),
      await post(good, '', '/v1/serve', 'GET'),
    ];
    taking = false;
    declined.push(await post(good, '{}'));
    taking = true;
    expect(declined.map((answer) => answer.status)).toEqual(Array(declined.length).fill(LEFT_TO_FASTIFY));
    expect(answered).toEqual([]);
  });
});
