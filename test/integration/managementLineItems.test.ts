import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';
import { asAdvertiser, composeBody, composeCampaign, createCampaign, validCreative } from '../helpers/managementFactories.js';
import { inListOrder } from '../helpers/listOrder.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** A fresh advertiser with one composed campaign; `api` speaks with its key. */
async function setup() {
  const advertiser = await createAdvertiser(ctx);
  const ids = await composeCampaign(ctx, advertiser.key, advertiser.user.id);
  return { ...ids, advertiser, api: asAdvertiser(ctx, advertiser.key) };
}

describe('POST /v1/advertiser/campaigns/:id/line-items', () => {
  it('creates a draft line item under the campaign and answers 201 with it in data', async () => {
    const { advertiser, api } = await setup();
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    const response = await api('POST', `/v1/advertiser/campaigns/${campaign.id}/line-items`, {
      title: 'Europe',
      objective: 'conversions',
      primary_kpi: 'conversions',
      budget: { daily: 100.5, currency: 'eur' },
      bids: { bid_type: 'cpa', bid_value: 12.345678 },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      data: {
        id: expect.any(String),
        campaign_id: campaign.id,
        title: 'Europe',
        objective: 'conversions',
        primary_kpi: 'CPA',
        status: 'draft',
        budget: { daily: 100.5, currency: 'EUR', lifetime: null, pacing: 'even' },
        bids: { bid_type: 'CPA', bid_value: 12.345678 },
        targeting: {},
        frequency_cap: null,
        creatives: [],
        created_at: expect.any(String),
        updated_at: expect.any(String),
        delivery_stopped_by: null,
      },
    });
  });

  it('creates a line item with only a title: no budget, no bids, no objective', async () => {
    const { api, campaignId } = await setup();
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ title: 'Bare', objective: null, primary_kpi: null, budget: null, bids: null, status: 'draft' });
  });

  it('answers 422 listing every offending field, unknown fields included', async () => {
    const { api, campaignId } = await setup();
    const response = await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, {
      status: 'active',
      budget: { daily: 'ten', currency: 'USD', cap: 3 },
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(['budget.cap', 'budget.daily', 'status', 'title']);
  });

  it('answers 404 for a campaign that does not exist', async () => {
    const { api } = await setup();
    const response = await api('POST', '/v1/advertiser/campaigns/00000000-0000-4000-8000-000000000000/line-items', { title: 'x' });
    expect(response.statusCode).toBe(404);
  });
});

describe('GET /v1/advertiser/campaigns/:id/line-items', () => {
  it('lists the line items of the campaign, oldest first, each with budget, bids, targeting and creatives', async () => {
    const { api, campaignId, lineItemId } = await setup();
    const second = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Second' })).json().data;
    await api('POST', `/v1/advertiser/line-items/${second.id}/creatives`, { creatives: [validCreative] });
    const response = await api('GET', `/v1/advertiser/campaigns/${campaignId}/line-items`);
    expect(response.statusCode).toBe(200);
    const data: Array<{ id: string; creatives: unknown[] }> = response.json().data;
    expect(data.map((lineItem) => lineItem.id)).toEqual(await inListOrder(ctx, 'line_items', [lineItemId, second.id]));
    expect(data.find((lineItem) => lineItem.id === lineItemId)!.creatives).toEqual([]);
    expect(data.find((lineItem) => lineItem.id === second.id)!.creatives).toHaveLength(1);
  });

  it.each(['limit=1', 'stauts=draft', 'offset=-1', 'x[]=1'])(
    'answers 400 naming %s: the list is whole and takes no parameter, so none is ignored',
    async (query) => {
      const { api, campaignId } = await setup();
      const response = await api('GET', `/v1/advertiser/campaigns/${campaignId}/line-items?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'bad_request',
        details: [{ path: query.split('=')[0], message: 'unknown parameter' }],
      });
    },
  );

  it('lists nothing for a campaign without line items', async () => {
    const { advertiser, api } = await setup();
    const campaign = await createCampaign(ctx, advertiser.key, advertiser.user.id);
    expect((await api('GET', `/v1/advertiser/campaigns/${campaign.id}/line-items`)).json()).toEqual({ data: [] });
  });
});

describe('GET /v1/advertiser/line-items/:id', () => {
  it('answers the line item with its budget, bids, targeting and creatives', async () => {
    const { api, lineItemId, campaignId } = await setup();
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { languages: ['de'] });
    await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [validCreative] });
    const response = await api('GET', `/v1/advertiser/line-items/${lineItemId}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      id: lineItemId,
      campaign_id: campaignId,
      budget: { daily: 50, currency: 'USD' },
      bids: { bid_type: 'CPC', bid_value: 1.25 },
      targeting: { languages: ['de'] },
      creatives: [{ ...validCreative, image_url: null, line_item_id: lineItemId }],
    });
  });
});

describe('PATCH /v1/advertiser/line-items/:id', () => {
  it('changes title, objective and primary_kpi, normalized, and bumps updated_at', async () => {
    const { api, lineItemId } = await setup();
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    const response = await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, {
      title: 'Renamed',
      objective: 'brand_awareness',
      primary_kpi: 'impressions',
    });
    expect(response.statusCode).toBe(200);
    const after = response.json().data;
    expect(after).toMatchObject({ title: 'Renamed', objective: 'awareness', primary_kpi: 'CPM', status: 'draft' });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
  });

  it('moves draft -> active -> paused -> active -> completed', async () => {
    const { api, lineItemId } = await setup();
    for (const status of ['active', 'paused', 'active', 'completed']) {
      const response = await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status });
      expect(response.statusCode, status).toBe(200);
      expect(response.json().data.status).toBe(status);
    }
  });

  it('answers 422 on leaving completed, and on going back to draft', async () => {
    const { api, lineItemId, campaignId } = await setup();
    await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'active' });
    const back = await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'draft' });
    expect(back.statusCode).toBe(422);
    await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'completed' });
    for (const status of ['active', 'paused', 'draft']) {
      const response = await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status });
      expect(response.statusCode, status).toBe(422);
      expect(response.json().error.details).toEqual([{ path: 'status', message: 'a completed line item is final' }]);
    }
    const other = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'x' })).json().data;
    expect((await api('PATCH', `/v1/advertiser/line-items/${other.id}`, { status: 'completed' })).statusCode).toBe(200);
  });

  it('answers 422 listing budget and bids when activating a line item without them', async () => {
    const { api, campaignId } = await setup();
    const bare = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' })).json().data;
    const response = await api('PATCH', `/v1/advertiser/line-items/${bare.id}`, { status: 'active' });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(['bids', 'budget']);
    expect((await api('GET', `/v1/advertiser/line-items/${bare.id}`)).json().data.status).toBe('draft');
  });

  it('answers 422 for an empty body and for unknown fields', async () => {
    const { api, lineItemId } = await setup();
    expect((await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, {})).statusCode).toBe(422);
    const unknown = await api('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { title: 'x', budget: { daily: 1, currency: 'USD' } });
    expect(unknown.statusCode).toBe(422);
    expect(detailPaths(unknown).sort()).toEqual(['budget']);
  });

  it('answers 400 bad_request on malformed JSON', async () => {
    const { advertiser, lineItemId } = await setup();
    const response = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/advertiser/line-items/${lineItemId}`,
      headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json' },
      payload: '{"title": }',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_request');
  });
});

describe('PUT /v1/advertiser/line-items/:id/budget', () => {
  it('sets the budget of a line item that had none, then replaces it (upsert)', async () => {
    const { api, campaignId } = await setup();
    const bare = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' })).json().data;
    const first = await api('PUT', `/v1/advertiser/line-items/${bare.id}/budget`, { daily: 25, currency: 'gbp' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.budget).toEqual({ daily: 25, currency: 'GBP', lifetime: null, pacing: 'even' });
    const second = await api('PUT', `/v1/advertiser/line-items/${bare.id}/budget`, { daily: 0.000001, currency: 'JPY' });
    expect(second.json().data.budget).toEqual({ daily: 0.000001, currency: 'JPY', lifetime: null, pacing: 'even' });
    expect(Date.parse(second.json().data.updated_at)).toBeGreaterThan(Date.parse(first.json().data.updated_at));
  });

  it('takes lifetime: null as no lifetime cap (clearing a stored one), so the budget a GET answers can be PUT back', async () => {
    const { advertiser, api, lineItemId } = await setup();
    const capped = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 50, currency: 'USD', lifetime: 500 });
    expect(capped.json().data.budget).toEqual({ daily: 50, currency: 'USD', lifetime: 500, pacing: 'even' });
    const cleared = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 50, currency: 'USD', lifetime: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().data.budget).toEqual({ daily: 50, currency: 'USD', lifetime: null, pacing: 'even' });
    const read = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.budget;
    const roundTrip = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, read);
    expect(roundTrip.statusCode).toBe(200);
    expect(roundTrip.json().data.budget).toEqual(read);

    // The same Budget schema in a line item's body: compose, validate and create.
    const budget = { daily: 20, currency: 'EUR', lifetime: null, pacing: 'asap' };
    const body = composeBody(advertiser.user.id, { line_item: { budget } });
    const validated = await api('POST', '/v1/advertiser/campaigns/validate', body);
    expect(validated.statusCode).toBe(200);
    const composed = await api('POST', '/v1/advertiser/campaigns/compose', body);
    expect(composed.statusCode).toBe(201);
    expect((await api('GET', `/v1/advertiser/line-items/${composed.json().data.line_item.id}`)).json().data.budget).toEqual(budget);
    const created = await api('POST', `/v1/advertiser/campaigns/${composed.json().data.campaign.id}/line-items`, { title: 'Null lifetime', budget });
    expect(created.statusCode).toBe(201);
    expect(created.json().data.budget).toEqual(budget);
  });

  it.each([
    [{ daily: 0, currency: 'USD' }, ['daily']],
    [{ daily: -5, currency: 'USD' }, ['daily']],
    [{ daily: 1.0000001, currency: 'USD' }, ['daily']],
    [{ daily: '10', currency: 'USD' }, ['daily']],
    [{ daily: 10 }, ['currency']],
    [{ currency: 'USD' }, ['daily']],
    [{ daily: 10, currency: 'DOLLARS' }, ['currency']],
    [{ daily: 10, currency: 'XYZ' }, ['currency']],
    [{ daily: 10, currency: 'UYU' }, ['currency']],
    [{ daily: 10, currency: 'USD', monthly: 300 }, ['monthly']],
  ])('answers 422 for %j', async (body, offending) => {
    const { api, lineItemId } = await setup();
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, body);
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(offending);
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.budget).toEqual({ daily: 50, currency: 'USD', lifetime: null, pacing: 'even' });
  });

  it('tells an ISO code without a rate ("unsupported currency") from a code that is not ISO', async () => {
    const { api, lineItemId } = await setup();
    const unsupported = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 1, currency: 'UYU' });
    const notIso = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 1, currency: 'XYZ' });
    expect(unsupported.json().error.details[0].message).toMatch(/^unsupported currency/);
    expect(notIso.json().error.details[0].message).toMatch(/ISO 4217/);
  });
});

describe('PUT /v1/advertiser/line-items/:id/bids', () => {
  it('sets bids on a line item that had none, then replaces them (upsert), normalized', async () => {
    const { api, campaignId } = await setup();
    const bare = (await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare' })).json().data;
    const first = await api('PUT', `/v1/advertiser/line-items/${bare.id}/bids`, { bid_type: 'cpm', bid_value: 3.5 });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.bids).toEqual({ bid_type: 'tCPM', bid_value: 3.5 });
    const second = await api('PUT', `/v1/advertiser/line-items/${bare.id}/bids`, { bid_type: 'cpc', bid_value: 0.4 });
    expect(second.json().data.bids).toEqual({ bid_type: 'CPC', bid_value: 0.4 });
  });

  it.each([
    [{ bid_type: 'cpc', bid_value: 0 }, ['bid_value']],
    [{ bid_type: 'cpc', bid_value: -1 }, ['bid_value']],
    [{ bid_type: 'cpc', bid_value: 0.1234567 }, ['bid_value']],
    [{ bid_type: 'cpv', bid_value: 1 }, ['bid_type']],
    [{}, ['bid_type', 'bid_value']],
    [{ bid_type: 'cpc', bid_value: 1, currency: 'USD' }, ['currency']],
  ])('answers 422 for %j', async (body, offending) => {
    const { api, lineItemId } = await setup();
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, body);
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(offending);
  });
});

describe('the bid_value cap: at most 1,000,000 in the line item\'s currency', () => {
  const over = { bid_type: 'cpc', bid_value: 1_000_000.000001 };

  it('PUT bids: 422 validation_error on bid_value above the cap, and the stored bids stay as they were', async () => {
    const { api, lineItemId } = await setup();
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    for (const body of [over, { bid_type: 'cpa', bid_value: 10_000_000 }]) {
      const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, body);
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'bid_value' }] });
      expect(response.json().error.details[0].message).toContain('1,000,000');
    }
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data).toEqual(before);
    const atCap = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, { bid_type: 'cpa', bid_value: 1_000_000 });
    expect(atCap.statusCode).toBe(200);
    expect(atCap.json().data.bids).toEqual({ bid_type: 'CPA', bid_value: 1_000_000 });
  });

  it('POST line-items and compose: 422 on bid_value above the cap, whatever the currency, and nothing is created', async () => {
    const { api, campaignId, advertiser } = await setup();
    const listed = async () => (await api('GET', `/v1/advertiser/campaigns/${campaignId}/line-items`)).json().data.length;
    const count = await listed();
    const created = await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, {
      title: 'Too dear',
      budget: { daily: 100, currency: 'KRW' },
      bids: over,
    });
    expect(created.statusCode).toBe(422);
    expect(created.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'bids.bid_value' }] });
    expect(await listed()).toBe(count);

    const campaigns = async () => (await api('GET', '/v1/advertiser/campaigns?limit=1000')).json().data.length;
    const campaignCount = await campaigns();
    const composed = await api('POST', '/v1/advertiser/campaigns/compose', {
      campaign: { name: 'Dear', brand_name: 'Brand', user_id: advertiser.user.id },
      line_item: { title: 'Too dear', bids: over },
    });
    expect(composed.statusCode).toBe(422);
    expect(detailPaths(composed)).toEqual(['line_item.bids.bid_value']);
    expect(await campaigns()).toBe(campaignCount);
  });
});

describe('a bid that would price at 0 nano-USD: 422 on bid_value, naming the smallest bid in the currency (try37 M2)', () => {
  // tCPM 0.0001 KRW is 68 nano-USD a thousand impressions: 0 nano-USD an impression. 0.000736 KRW is the smallest tCPM bid that prices at 1.
  const tiny = { bid_type: 'tcpm', bid_value: 0.0001 };

  it('PUT bids: refused in the budget\'s currency, stored from the smallest bid that prices', async () => {
    const { api, lineItemId } = await setup();
    expect((await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 1000, currency: 'KRW' })).statusCode).toBe(200);
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    for (const bid_value of [0.0001, 0.000735]) {
      const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, { ...tiny, bid_value });
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'bid_value' }] });
      expect(response.json().error.details[0].message).toContain('at least 0.000736 KRW');
    }
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data).toEqual(before);
    const smallest = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, { ...tiny, bid_value: 0.000736 });
    expect(smallest.statusCode).toBe(200);
    // The same amount prices in USD (1 nano-USD an impression at 0.000001): only weak currencies have a floor above every amount's.
    const { api: usdApi, lineItemId: usdLineItem } = await setup();
    expect((await usdApi('PUT', `/v1/advertiser/line-items/${usdLineItem}/bids`, { bid_type: 'tcpm', bid_value: 0.000001 })).statusCode).toBe(200);
  });

  it('PUT budget: a currency change that would price the stored bid at 0 is refused, and nothing changes', async () => {
    const { api, lineItemId } = await setup();
    expect((await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 10, currency: 'USD' })).statusCode).toBe(200);
    expect((await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, tiny)).statusCode).toBe(200);
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 1000, currency: 'KRW' });
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'bid_value' }] });
    expect(response.json().error.details[0].message).toContain('at least 0.000736 KRW');
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data).toEqual(before);
    // In JPY the same bid still prices (1 nano-USD an impression from 0.000079 JPY).
    expect((await api('PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 1000, currency: 'JPY' })).statusCode).toBe(200);
  });

  it('POST line-items and compose: refused with the budget given in the same body, nothing created', async () => {
    const { api, campaignId, advertiser } = await setup();
    const created = await api('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Free', budget: { daily: 0.0001, currency: 'KRW' }, bids: tiny });
    expect(created.statusCode).toBe(422);
    expect(detailPaths(created)).toEqual(['bids.bid_value']);
    const composed = await api('POST', '/v1/advertiser/campaigns/compose', {
      campaign: { name: 'Free', brand_name: 'Brand', user_id: advertiser.user.id },
      line_item: { title: 'Free', budget: { daily: 1000, currency: 'KRW' }, bids: tiny },
    });
    expect(composed.statusCode).toBe(422);
    expect(detailPaths(composed)).toEqual(['line_item.bids.bid_value']);
  });
});

describe('PUT /v1/advertiser/line-items/:id/targeting', () => {
  it('stores targeting normalized: keywords lower-cased, trimmed, deduplicated; languages lower-cased', async () => {
    const { api, lineItemId } = await setup();
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {
      keywords: { include: ['Laptop', ' laptop ', 'Gaming   PC'], exclude: ['Refurbished'] },
      placements: { include: ['chat-main', 'chat-main', 'Chat-Side'], exclude: [] },
      languages: ['EN', 'de', 'en'],
    });
    expect(response.statusCode).toBe(200);
    const expected = {
      keywords: { include: ['laptop', 'gaming pc'], exclude: ['refurbished'] },
      placements: { include: ['chat-main', 'Chat-Side'], exclude: [] },
      languages: ['en', 'de'],
    };
    expect(response.json().data.targeting).toEqual(expected);
    const { rows } = await ctx.stores.db.query<{ targeting: unknown }>('SELECT targeting FROM line_items WHERE id = $1', [lineItemId]);
    expect(rows[0]!.targeting).toEqual(expected);
  });

  it('replaces the whole object: fields left out are gone', async () => {
    const { api, lineItemId } = await setup();
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {
      keywords: { include: ['laptop'] },
      languages: ['en'],
    });
    const replaced = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { placements: { exclude: ['p1'] } });
    expect(replaced.json().data.targeting).toEqual({ placements: { exclude: ['p1'] } });
    const cleared = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {});
    expect(cleared.json().data.targeting).toEqual({});
  });

  it('answers 422 to a PUT without a body, or with JSON null, and leaves the targeting as it was (not replaced by nothing)', async () => {
    const { advertiser, api, lineItemId } = await setup();
    const targeting = { keywords: { include: ['laptop'] }, languages: ['en'] };
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, targeting);
    const url = `/v1/advertiser/line-items/${lineItemId}/targeting`;
    const nullBody = await ctx.app.inject({ method: 'PUT', url, headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json' }, payload: 'null' });
    const noBody = await ctx.app.inject({ method: 'PUT', url, headers: { 'x-api-key': advertiser.key } });
    for (const response of [nullBody, noBody]) {
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: '', message: 'a JSON object body is required' }] });
    }
    const patch = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/advertiser/line-items/${lineItemId}`,
      headers: { 'x-api-key': advertiser.key, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(patch.statusCode).toBe(422);
    const { rows } = await ctx.stores.db.query<{ targeting: unknown }>('SELECT targeting FROM line_items WHERE id = $1', [lineItemId]);
    expect(rows[0]!.targeting).toEqual(targeting);
  });

  it('answers 422 listing every offending field and leaves the targeting as it was', async () => {
    const { api, lineItemId } = await setup();
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { languages: ['en'] });
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {
      keywords: { include: ['ok', '', 'x'.repeat(101)], only: ['x'] },
      placements: { include: ['bad id/with slash'] },
      languages: ['english', 'zz'],
      countries: ['US'],
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'countries',
      'keywords.include.1',
      'keywords.include.2',
      'keywords.only',
      'languages.0',
      'languages.1',
      'placements.include.0',
    ]);
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.targeting).toEqual({ languages: ['en'] });
  });

  it('answers 422 for more than 500 keywords in a list', async () => {
    const { api, lineItemId } = await setup();
    const include = Array.from({ length: 501 }, (_, index) => `keyword ${index}`);
    const response = await api('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { keywords: { include } });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(['keywords.include']);
  });
});

describe('POST /v1/advertiser/line-items/:id/creatives', () => {
  it('attaches one or many creatives and answers 201 with the stored creatives, ids included, in order', async () => {
    const { api, lineItemId } = await setup();
    const withImage = { ...validCreative, title: 'With image', image_url: 'https://cdn.example.com/a.png' };
    const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [validCreative, withImage] });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({
      data: [
        { id: expect.any(String), line_item_id: lineItemId, ...validCreative, image_url: null, created_at: expect.any(String) },
        { id: expect.any(String), line_item_id: lineItemId, ...withImage, created_at: expect.any(String) },
      ],
    });
    const more = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [{ ...validCreative, title: 'Third' }] });
    expect(more.statusCode).toBe(201);
    const lineItem = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data;
    expect(lineItem.creatives.map((creative: { title: string }) => creative.title)).toEqual([validCreative.title, 'With image', 'Third']);
  });

  it('refuses destinations that are not http or https, with every offending field', async () => {
    const { api, lineItemId } = await setup();
    const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, {
      creatives: [
        { ...validCreative, destination_url: 'javascript:alert(1)' },
        { ...validCreative, destination_url: 'ftp://files.example.com/x', image_url: 'data:image/png;base64,AAAA' },
        { ...validCreative, format: 'banner', title: 'x'.repeat(91), body: '', cta: 'c'.repeat(31), sponsor: 'me' },
      ],
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual([
      'creatives.0.destination_url',
      'creatives.1.destination_url',
      'creatives.1.image_url',
      'creatives.2.body',
      'creatives.2.cta',
      'creatives.2.format',
      'creatives.2.sponsor',
      'creatives.2.title',
    ]);
    expect((await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.creatives).toEqual([]);
  });

  it('answers 422 for none, or more than 20, in one request', async () => {
    const { api, lineItemId } = await setup();
    for (const creatives of [[], Array.from({ length: 21 }, () => validCreative)]) {
      const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives });
      expect(response.statusCode).toBe(422);
      expect(detailPaths(response).sort()).toEqual(['creatives']);
    }
  });

  it('answers 422 for text with control characters instead of failing in the database', async () => {
    const { api, lineItemId } = await setup();
    const response = await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, {
      creatives: [{ ...validCreative, title: 'nul\u0000byte' }],
    });
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(['creatives.0.title']);
  });

  it('bumps the line item updated_at', async () => {
    const { api, lineItemId } = await setup();
    const before = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.updated_at;
    await api('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [validCreative] });
    const after = (await api('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.updated_at;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before));
  });
});

describe('catalog changes', () => {
  it('records every management write of a line item, so serving reloads it', async () => {
    const { api, lineItemId } = await setup();
    const changes = async () =>
      (await ctx.stores.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM catalog_changes WHERE kind = 'line_item' AND entity_id = $1`, [lineItemId])).rows[0]!.n;
    const before = await changes();
    await api('PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, { bid_type: 'cpc', bid_value: 2 });
    expect(await changes()).toBeGreaterThan(before);
  });
});
