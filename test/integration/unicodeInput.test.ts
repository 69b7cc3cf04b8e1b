import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { asAdvertiser, composeBody, composeCampaign, validCreative } from '../helpers/managementFactories.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, BROWSER_UA, eventsOf, trackedLineItem } from '../helpers/trackingFixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** A lone UTF-16 surrogate: JSON can spell it ("\ud800"), UTF-8 cannot hold it. */
const LONE_HIGH = '\ud800';
const LONE_LOW = '\udfff';

function expectRefused(response: { statusCode: number; json: () => { error: unknown } }, path: string) {
  expect(response.statusCode, path).toBe(422);
  expect(response.json().error).toMatchObject({ code: 'validation_error', details: expect.arrayContaining([expect.objectContaining({ path })]) });
}

describe('text that is not well-formed Unicode is refused with 422 and changes nothing', () => {
  it('campaign, organization and publisher names', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const name = `surrogate-${randomUUID()}`;
    expectRefused(await api('POST', '/v1/advertiser/campaigns', { name: `${name}${LONE_HIGH}`, brand_name: 'Acme', user_id: advertiser.user.id }), 'name');
    expectRefused(await api('POST', '/v1/advertiser/campaigns', { name, brand_name: `a${LONE_LOW}b`, user_id: advertiser.user.id }), 'brand_name');
    expectRefused(await ctx.admin({ method: 'POST', url: '/v1/admin/organizations', payload: { name: `${name}${LONE_HIGH}` } }), 'name');
    expectRefused(await ctx.admin({ method: 'POST', url: '/v1/admin/publishers', payload: { name: `${name}${LONE_LOW}` } }), 'name');
    const stored = await ctx.stores.db.query(
      'SELECT 1 FROM campaigns WHERE name LIKE $1 UNION ALL SELECT 1 FROM organizations WHERE name LIKE $1 UNION ALL SELECT 1 FROM publishers WHERE name LIKE $1',
      [`${name}%`],
    );
    expect(stored.rows).toEqual([]);
  });

  it('targeting keywords on PUT targeting, compose and validate alike (was 500 from jsonb)', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;

    expectRefused(await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { keywords: { include: [LONE_HIGH] } }), 'keywords.include.0');
    const withKeyword = composeBody(advertiser.user.id, { line_item: { targeting: { keywords: { exclude: ['ok', `x${LONE_LOW}`] } } } });
    expectRefused(await api('POST', '/v1/advertiser/campaigns/compose', withKeyword), 'line_item.targeting.keywords.exclude.1');
    expectRefused(await api('POST', '/v1/advertiser/campaigns/validate', withKeyword), 'line_item.targeting.keywords.exclude.1');

    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data).toEqual(before);
  });

  it('creative copy', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    for (const field of ['title', 'body', 'cta'] as const) {
      const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [{ ...validCreative, [field]: `x${LONE_HIGH}` }] });
      expectRefused(response, `creatives.0.${field}`);
    }
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.creatives).toEqual([]);
  });

  it('creative URLs (a lone surrogate became U+FFFD: another address than the one sent)', async () => {
    const advertiser = await createAdvertiser(ctx);
    const api = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
    for (const field of ['destination_url', 'image_url'] as const) {
      const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [{ ...validCreative, [field]: `https://shop.example.com/a${LONE_LOW}` }] });
      expectRefused(response, `creatives.0.${field}`);
    }
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.creatives).toEqual([]);
  });

  it('a conversion_id (a lone \\ud800 and \\udfff would both be stored as U+FFFD, one id)', async () => {
    const advertiser = await createAdvertiser(ctx);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/advertiser/conversions',
      headers: { 'x-api-key': advertiser.key },
      payload: { click_id: randomUUID(), conversion_id: `order-${LONE_LOW}` },
    });
    expectRefused(response, 'conversion_id');
  });

  it('an imported event line: rejected with its line number, never accepted then quarantined', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 3 });
    const base = { type: 'impression', time: new Date(Date.now() - 60_000).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential };
    const body = [{ ...base, user_agent: BROWSER_UA }, { ...base, user_agent: `Mozilla${LONE_HIGH}` }].map((line) => JSON.stringify(line)).join('\n');
    const response = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson' }, payload: body });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ accepted: 1, rejected: 1, errors: [{ line: 2, message: expect.stringMatching(/^user_agent: .*Unicode/) }] });
    expect(await eventsOf(ctx, item.lineItemId)).toHaveLength(1);
  });

  it('an imported line whose bytes are not UTF-8: rejected with its line number, the others imported', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 3 });
    const base = { type: 'impression', time: new Date(Date.now() - 60_000).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential };
    const [before, after] = JSON.stringify({ ...base, user_agent: 'Mozilla' }).split('Mozilla');
    const payload = Buffer.concat([Buffer.from(`${JSON.stringify(base)}\n${before}Moz`), Buffer.from([0xff]), Buffer.from(`illa${after}\n${JSON.stringify(base)}\n`)]);
    const response = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson' }, payload });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ accepted: 2, rejected: 1, errors: [{ line: 2, message: 'not valid UTF-8' }] });
    expect(await eventsOf(ctx, item.lineItemId)).toHaveLength(2);
  });

  it('keeps well-formed text outside the Basic Multilingual Plane (a surrogate pair) as sent', async () => {
    const advertiser = await createAdvertiser(ctx);
    const name = `launch \u{1F680} ${randomUUID()}`;
    const response = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns', { name, brand_name: 'Acme', user_id: advertiser.user.id });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.name).toBe(name);
  });
});

describe('a body is UTF-8 JSON', () => {
  it('answers 415 for a charset other than utf-8, on JSON and on the NDJSON import, and creates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const name = `charset-${randomUUID()}`;
    const payload = JSON.stringify({ name, brand_name: 'Acme', user_id: advertiser.user.id });
    for (const contentType of ['application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json;charset="ISO-8859-1"']) {
      const response = await ctx.app.inject({ method: 'POST', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key, 'content-type': contentType }, payload });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toEqual({ error: { code: 'unsupported_media_type', message: expect.any(String) } });
    }
    const imported = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson; charset=utf-16' }, payload: '' });
    expect(imported.statusCode).toBe(415);
    expect((await ctx.stores.db.query('SELECT 1 FROM campaigns WHERE name = $1', [name])).rows).toEqual([]);

    const utf8 = await ctx.app.inject({ method: 'POST', url: '/v1/advertiser/campaigns', headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json; charset=UTF-8' }, payload });
    expect(utf8.statusCode).toBe(201);
  });

  it('answers 415 naming the content-encoding for a compressed body, not "not valid UTF-8", and creates nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    const name = `gzip-${randomUUID()}`;
    const payload = gzipSync(JSON.stringify({ name, brand_name: 'Acme', user_id: advertiser.user.id }));
    for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
      const headers = { 'x-api-key': advertiser.key, 'content-type': 'application/json', 'content-encoding': encoding };
      const response = await ctx.app.inject({ method: 'POST', url: '/v1/advertiser/campaigns', headers, payload });
      expect(response.statusCode, encoding).toBe(415);
      expect(response.json()).toEqual({ error: { code: 'unsupported_media_type', message: `content-encoding ${encoding} is not supported: send the body uncompressed` } });
    }
    const imported = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' }, payload: gzipSync('{}\n') });
    expect(imported.statusCode).toBe(415);
    expect(imported.json().error.message).toBe('content-encoding gzip is not supported: send the body uncompressed');
    expect((await ctx.stores.db.query('SELECT 1 FROM campaigns WHERE name = $1', [name])).rows).toEqual([]);

    const identity = await ctx.app.inject({
      method: 'POST',
      url: '/v1/advertiser/campaigns',
      headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: gunzipSync(payload),
    });
    expect(identity.statusCode).toBe(201);
  });

  it('the event import answers another content type with its own hint (NDJSON), not "application/json"', async () => {
    for (const [contentType, payload] of [['text/csv', 'a,b'], ['text/plain', 'a'], ['application/json', '{"type":"impression"}']]) {
      const response = await ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': contentType! }, payload });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toEqual({ error: { code: 'unsupported_media_type', message: 'send the events as application/x-ndjson, one JSON object a line' } });
    }
  });

  it('answers 400 for bytes that are not UTF-8, rather than storing U+FFFD in their place', async () => {
    const publisher = await createPublisher(ctx);
    const id = `pl-${randomUUID().slice(0, 12)}`;
    const payload = Buffer.concat([Buffer.from(`{"id":"${id}","name":"caf`), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/placements`, headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'bad_request', message: 'request body is not valid UTF-8' } });
    expect((await ctx.stores.db.query('SELECT 1 FROM placements WHERE id = $1', [id])).rows).toEqual([]);
    await createPlacement(ctx, publisher.id, id);
  });
});
