import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, BOT_UA, BROWSER_UA, eventsOf, readerAddress, serveClaims, signedToken, trackedLineItem, waitForEvents, type StoredEvent, type TrackedLineItem } from '../helpers/trackingFixtures.js';
import { metricSample } from '../helpers/metricSample.js';
import { signTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';

/**
 * The impression pixel over a real connection is answered before fastify (src/tracking/directPixel.ts)
 * whenever it can be; app.inject() always reaches the fastify route. The two must answer every
 * pixel the same (status, body, headers) and store the same event: the same verdict of every rule
 * that reads the request (address, user agent, Fetch Metadata, server-side markers, the token, the
 * serve's history), the same cost.
 */
let ctx: TestContext;
let baseUrl: string;
let item: TrackedLineItem;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;
  item = await trackedLineItem(ctx);
});
afterAll(async () => {
  await ctx.close();
});

const IMAGE_LOAD = { 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site' };
const SCRIPT_FETCH = { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' };
const PRICE = 2_500_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function overHttp(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const response = await request(`${base}${path}`, { method: 'GET', headers });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

async function injected(on: TestContext, path: string, headers: Record<string, string>): Promise<Answer> {
  const response = await on.app.inject({ method: 'GET', url: path, remoteAddress: '127.0.0.1', headers });
  return { status: response.statusCode, headers: response.headers as Answer['headers'], body: response.rawPayload };
}

const SAME_HEADERS = ['content-type', 'content-length', 'cache-control', 'cross-origin-resource-policy', 'retry-after', 'connection'];

function expectSameAnswer(direct: Answer, routed: Answer): void {
  expect(direct.status).toBe(routed.status);
  expect(direct.body.equals(routed.body)).toBe(true);
  for (const name of SAME_HEADERS) expect(direct.headers[name], name).toEqual(routed.headers[name]);
  expect(direct.headers['x-request-id']).toMatch(/^[\w-]{1,64}$/);
}

/** What a stored event says beyond its ids: equal between the two paths. */
function verdictOf(event: StoredEvent | undefined): unknown {
  if (event === undefined) return undefined;
  const { event_id: _eventId, serve_id: _serveId, click_id: _clickId, ...rest } = event;
  return rest;
}

interface PixelCase {
  name: string;
  address: string;
  userAgent?: string;
  headers?: Record<string, string>;
  /** The link's path for a serve's claims; the signed token's by default. */
  path?: (claims: TrackingClaims) => string;
  /** Claims beyond a fresh serve's. */
  claims?: Partial<TrackingClaims>;
  /** Pixels of the same link, one after the other. */
  repeat?: number;
}

const signed = (claims: TrackingClaims) => `${IMPRESSION_PATH}${signedToken(ctx, claims)}`;

const CASES: PixelCase[] = [
  { name: 'an image load from a home', address: readerAddress(), headers: IMAGE_LOAD },
  { name: 'no Fetch Metadata, an IPv6 home', address: ADDRESSES.telekomResidentialV6 },
  { name: 'a data center', address: ADDRESSES.awsV4, headers: IMAGE_LOAD },
  { name: 'a data center over IPv6', address: ADDRESSES.hetznerV6 },
  { name: 'a bot', address: readerAddress(), userAgent: BOT_UA },
  { name: 'a script fetch', address: readerAddress(), headers: SCRIPT_FETCH },
  { name: 'a Cloudflare Worker', address: ADDRESSES.cloudflareWarp, headers: { 'cf-worker': 'example.com' } },
  { name: 'a privacy relay', address: ADDRESSES.cloudflareWarp, headers: IMAGE_LOAD },
  { name: 'the same pixel three times', address: readerAddress(), repeat: 3 },
  { name: 'a query string after the token', address: readerAddress(), path: (claims) => `${signed(claims)}?cb=123&x=%20` },
  { name: 'a token of format 1', address: readerAddress(), path: (claims) => `${IMPRESSION_PATH}${signTrackingToken(claims, ctx.secrets.trackingSecret, 1)}` },
  { name: 'an expired token', address: readerAddress(), claims: { e: Math.floor(Date.now() / 1000) - 60 } },
  {
    name: 'a tampered token',
    address: readerAddress(),
    path: (claims) => {
      const token = signedToken(ctx, claims);
      const at = token.length - 10;
      return `${IMPRESSION_PATH}${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    },
  },
  { name: 'a percent escape in the token (left to fastify)', address: readerAddress(), path: (claims) => `${signed(claims).slice(0, -1)}%${signed(claims).at(-1)!.charCodeAt(0).toString(16)}` },
  { name: 'chained proxies', address: `${readerAddress()}, 127.0.0.1` },
];

describe('the impression pixel over HTTP answers and stores as the fastify route does', () => {
  it('every rule that reads the request, the token or the serve', async () => {
    const pairs: Array<{ name: string; direct: string; routed: string }> = [];
    let expected = 0;
    for (const pixel of CASES) {
      const direct = serveClaims(item, 'tCPM', PRICE, pixel.claims);
      const routed = serveClaims(item, 'tCPM', PRICE, pixel.claims);
      const headers = { ...pixel.headers, 'x-forwarded-for': pixel.address, 'user-agent': pixel.userAgent ?? BROWSER_UA };
      for (let i = 0; i < (pixel.repeat ?? 1); i++) {
        const overTheWire = await overHttp(baseUrl, (pixel.path ?? signed)(direct), headers);
        const throughFastify = await injected(ctx, (pixel.path ?? signed)(routed), headers);
        expectSameAnswer(overTheWire, throughFastify);
        expect(overTheWire.status, pixel.name).toBe(200);
        expect(overTheWire.headers['content-type']).toBe('image/gif');
        expected += 2;
      }
      pairs.push({ name: pixel.name, direct: direct.s, routed: routed.s });
    }
    const events = await waitForEvents(ctx, item.lineItemId, expected);
    expect(events).toHaveLength(expected);
    const ofServe = (serveId: string) => events.filter((event) => event.serve_id === serveId).map(verdictOf);
    for (const { name, direct, routed } of pairs) {
      expect(ofServe(direct).length, name).toBeGreaterThan(0);
      expect(ofServe(direct), name).toEqual(ofServe(routed));
    }
    // The rules did decide: a spread of verdicts, not the same one for all.
    expect(new Set(events.map((event) => event.ivt))).toEqual(
      new Set(['', 'datacenter', 'bot', 'not_image_request', 'server_side', 'duplicate', 'expired_token', 'bad_token']),
    );
  });

  it('a token that decodes to nothing answers the GIF and stores nothing', async () => {
    const before = (await eventsOf(ctx, item.lineItemId)).length;
    const headers = { 'x-forwarded-for': readerAddress(), 'user-agent': BROWSER_UA };
    for (const path of [`${IMPRESSION_PATH}not-a-token`, `${IMPRESSION_PATH}x.y`, `${IMPRESSION_PATH}${'A'.repeat(3000)}`, IMPRESSION_PATH]) {
      const direct = await overHttp(baseUrl, path, headers);
      expectSameAnswer(direct, await injected(ctx, path, headers));
      expect(direct.status).toBe(200);
    }
    const head = await request(`${baseUrl}${signed(serveClaims(item, 'tCPM', PRICE))}`, { method: 'HEAD', headers });
    await head.body.dump();
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('image/gif');
    await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect((await eventsOf(ctx, item.lineItemId)).length).toBe(before);
  });

  it("echoes the caller's x-request-id, or gives a new one", async () => {
    const headers = { 'x-forwarded-for': readerAddress(), 'user-agent': BROWSER_UA };
    const given = await overHttp(baseUrl, signed(serveClaims(item, 'tCPM', PRICE)), { ...headers, 'x-request-id': 'pixel-7_b' });
    expect(given.headers['x-request-id']).toBe('pixel-7_b');
    const refused = await overHttp(baseUrl, signed(serveClaims(item, 'tCPM', PRICE)), { ...headers, 'x-request-id': 'has spaces' });
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('counts each answer in the request-duration histogram under the route, method and status', async () => {
    const count = () => metricSample(ctx, 'adsvc_http_request_duration_seconds_count{route="/v1/t/i/*",method="GET",status_code="200"}');
    const before = await count();
    for (let i = 0; i < 3; i++) await overHttp(baseUrl, signed(serveClaims(item, 'tCPM', PRICE)), { 'x-forwarded-for': readerAddress(), 'user-agent': BROWSER_UA });
    expect(await count()).toBe(before + 3);
  });

  it('answers 503 with Retry-After in the envelope when the buffer is full, as the route does, and keeps only what it accepted', async () => {
    const full = await startAnotherInstance(ctx, { TRUST_PROXY: '127.0.0.1', EVENT_BUFFER_MAX_ROWS: '1', EVENT_FLUSH_INTERVAL_MS: '600000' });
    const other = await trackedLineItem(ctx);
    try {
      await full.app.listen({ port: 0, host: '127.0.0.1' });
      const fullUrl = `http://127.0.0.1:${(full.app.server.address() as { port: number }).port}`;
      const headers = { 'x-forwarded-for': readerAddress(), 'user-agent': BROWSER_UA };
      const pixel = () => `${IMPRESSION_PATH}${signTrackingToken(serveClaims(other, 'tCPM', PRICE), full.secrets.trackingSecret)}`;
      expect((await overHttp(fullUrl, pixel(), headers)).status).toBe(200);
      const direct = await overHttp(fullUrl, pixel(), headers);
      const routed = await injected(full, pixel(), headers);
      expect(direct.status).toBe(503);
      expectSameAnswer(direct, routed);
      expect(JSON.parse(direct.body.toString('utf8'))).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      expect(direct.headers['retry-after']).toBe('5');
    } finally {
      await full.close();
    }
    const events = await eventsOf(ctx, other.lineItemId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ivt: '', cost_nanos: PRICE });
  });
});

describe('the impression pixel over HTTP to an https TRACKING_BASE_URL (browsers send Fetch Metadata there)', () => {
  it('stores a Chrome pixel without any Sec-Fetch-* as no_fetch_metadata, unbilled, and bills one with them', async () => {
    const https = await startAnotherInstance(ctx, { TRUST_PROXY: '127.0.0.1', TRACKING_BASE_URL: 'https://track.test' });
    const other = await trackedLineItem(ctx);
    try {
      await https.app.listen({ port: 0, host: '127.0.0.1' });
      const httpsUrl = `http://127.0.0.1:${(https.app.server.address() as { port: number }).port}`;
      const pixel = (claims: TrackingClaims) => `${IMPRESSION_PATH}${signTrackingToken(claims, https.secrets.trackingSecret)}`;
      const without = serveClaims(other, 'tCPM', PRICE);
      const withFetchMetadata = serveClaims(other, 'tCPM', PRICE);
      const chrome = { 'user-agent': BROWSER_UA };
      expect((await overHttp(httpsUrl, pixel(without), { ...chrome, 'x-forwarded-for': readerAddress() })).status).toBe(200);
      expect((await overHttp(httpsUrl, pixel(withFetchMetadata), { ...chrome, ...IMAGE_LOAD, 'x-forwarded-for': readerAddress() })).status).toBe(200);
      const events = await waitForEvents(https, other.lineItemId, 2);
      expect(events.find((event) => event.serve_id === without.s)).toMatchObject({ ivt: 'no_fetch_metadata', cost_nanos: 0 });
      expect(events.find((event) => event.serve_id === withFetchMetadata.s)).toMatchObject({ ivt: '', cost_nanos: PRICE });
    } finally {
      await https.close();
    }
  });
});
