import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser, composeBody } from '../helpers/managementFactories.js';
import { eventuallyServed, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };
let call: ReturnType<typeof asAdvertiser>;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ FLIGHT_SWEEP_MS: '200' }));
  call = asAdvertiser(ctx, advertiser.key);
});
afterAll(async () => {
  await ctx.close();
});

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const HOUR = 3_600_000;

async function campaignCount(): Promise<number> {
  const response = await call('GET', '/v1/advertiser/campaigns?limit=1000');
  return (response.json().data as unknown[]).length;
}

describe('campaign flights: management', () => {
  it('takes starts_at and ends_at with an offset on create, returns them in UTC, and duplicate copies them', async () => {
    const created = await call('POST', '/v1/advertiser/campaigns', {
      name: 'Flight',
      brand_name: 'Acme',
      user_id: advertiser.userId,
      starts_at: '2030-03-01T09:00:00+09:00',
      ends_at: '2030-04-01T00:00:00Z',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ starts_at: '2030-03-01T00:00:00.000Z', ends_at: '2030-04-01T00:00:00.000Z' });
    const id = created.json().data.id as string;
    const copy = await call('POST', `/v1/advertiser/campaigns/${id}/duplicate`, {});
    expect(copy.statusCode).toBe(201);
    expect(copy.json().data.campaign).toMatchObject({ starts_at: '2030-03-01T00:00:00.000Z', ends_at: '2030-04-01T00:00:00.000Z' });

    const open = await call('POST', '/v1/advertiser/campaigns', { name: 'Open', brand_name: 'Acme', user_id: advertiser.userId });
    expect(open.json().data).toMatchObject({ starts_at: null, ends_at: null });
  });

  it('takes RFC 3339 timestamps with a lower-case t and z (RFC 3339 5.6), as openapi.yaml date-time does', async () => {
    const created = await call('POST', '/v1/advertiser/campaigns', {
      name: 'Lower case',
      brand_name: 'Acme',
      user_id: advertiser.userId,
      starts_at: '2030-03-01t09:00:00+09:00',
      ends_at: '2030-04-01t00:00:00z',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ starts_at: '2030-03-01T00:00:00.000Z', ends_at: '2030-04-01T00:00:00.000Z' });
    const patched = await call('PATCH', `/v1/advertiser/campaigns/${created.json().data.id}`, { ends_at: '2030-05-01t00:00:00.5z' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.ends_at).toBe('2030-05-01T00:00:00.500Z');
  });

  it('refuses ends_at before starts_at and a time without an offset with 422 naming every field, writing nothing', async () => {
    const before = await campaignCount();
    const response = await call(
      'POST',
      '/v1/advertiser/campaigns/compose',
      composeBody(advertiser.userId, { campaign: { name: '', starts_at: '2030-05-02T00:00:00Z', ends_at: '2030-05-01T00:00:00Z' } }),
    );
    expect(response.statusCode).toBe(422);
    expect(detailPaths(response).sort()).toEqual(['campaign.ends_at', 'campaign.name']);
    const noOffset = await call('POST', '/v1/advertiser/campaigns/validate', {
      campaign: { name: 'x', brand_name: 'y', user_id: advertiser.userId, starts_at: '2030-05-01T00:00:00', ends_at: 'tomorrow' },
    });
    expect(noOffset.statusCode).toBe(422);
    expect(detailPaths(noOffset).sort()).toEqual(['campaign.ends_at', 'campaign.starts_at']);
    expect(await campaignCount()).toBe(before);
  });

  it('validate answers the flight it would store', async () => {
    const response = await call('POST', '/v1/advertiser/campaigns/validate', {
      campaign: { name: 'x', brand_name: 'y', user_id: advertiser.userId, starts_at: '2030-05-01T02:00:00+02:00' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.campaign).toMatchObject({ starts_at: '2030-05-01T00:00:00.000Z', ends_at: null });
  });

  it('PATCH checks a bound against the stored other one, and null opens the flight', async () => {
    const created = await call('POST', '/v1/advertiser/campaigns', {
      name: 'Patch flight',
      brand_name: 'Acme',
      user_id: advertiser.userId,
      starts_at: '2030-03-01T00:00:00Z',
    });
    const id = created.json().data.id as string;
    const refused = await call('PATCH', `/v1/advertiser/campaigns/${id}`, { ends_at: '2030-02-01T00:00:00Z', name: 'Renamed' });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused)).toEqual(['ends_at']);
    const unchanged = await call('GET', `/v1/advertiser/campaigns/${id}`);
    expect(unchanged.json().data).toMatchObject({ name: 'Patch flight', ends_at: null });

    const patched = await call('PATCH', `/v1/advertiser/campaigns/${id}`, { starts_at: null, ends_at: '2030-02-01T00:00:00Z' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ starts_at: null, ends_at: '2030-02-01T00:00:00.000Z' });
  });

  it('refuses flight bounds outside the years 1970 to 9999 with 422 and keeps those within as sent', async () => {
    const created = await call('POST', '/v1/advertiser/campaigns', { name: 'Far flight', brand_name: 'Acme', user_id: advertiser.userId });
    const id = created.json().data.id as string;
    // Year 0000 was a 500 from Postgres; 0001-0099 read back on PGlite as other dates (0001-06-15 as 2015-01-06).
    for (const bound of ['0000-01-01T00:00:00Z', '0001-06-15T00:00:00Z', '0099-06-15T00:00:00Z', '1969-12-31T23:59:59Z', '1970-01-01T00:30:00+01:00', '9999-12-31T23:59:59-01:00']) {
      const refused = await call('PATCH', `/v1/advertiser/campaigns/${id}`, { starts_at: bound });
      expect(refused.statusCode, bound).toBe(422);
      expect(detailPaths(refused)).toEqual(['starts_at']);
    }
    expect((await call('GET', `/v1/advertiser/campaigns/${id}`)).json().data.starts_at).toBeNull();

    const patched = await call('PATCH', `/v1/advertiser/campaigns/${id}`, { starts_at: '1970-01-01T00:00:00Z', ends_at: '9999-12-31T23:59:59.999Z' });
    expect(patched.statusCode).toBe(200);
    const stored = { starts_at: '1970-01-01T00:00:00.000Z', ends_at: '9999-12-31T23:59:59.999Z' };
    expect(patched.json().data).toMatchObject(stored);
    expect((await call('GET', `/v1/advertiser/campaigns/${id}`)).json().data).toMatchObject(stored);
  });

  it('refuses to activate a campaign whose ends_at is past', async () => {
    const composed = await call('POST', '/v1/advertiser/campaigns/compose', composeBody(advertiser.userId, { campaign: { ends_at: inMs(-HOUR) } }));
    expect(composed.statusCode).toBe(201);
    const id = composed.json().data.campaign.id as string;
    const activated = await call('POST', `/v1/advertiser/campaigns/${id}/activate`);
    expect(activated.statusCode).toBe(422);
    expect(detailPaths(activated)).toEqual(['ends_at']);
    const patched = await call('PATCH', `/v1/advertiser/campaigns/${id}`, { status: 'active' });
    expect(patched.statusCode).toBe(422);
  });
});

describe('campaign flights: serving', () => {
  it('serves nothing before starts_at', async () => {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const body = { placement_id: placement, context: { query: word, response: '' } };
    const later = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } }, campaign: { starts_at: inMs(HOUR) } });
    // A running flight on the same keyword proves the index has caught up when it is served.
    const running = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 1 },
      targeting: { keywords: { include: [word] } },
      campaign: { starts_at: inMs(-HOUR), ends_at: inMs(HOUR) },
    });
    await eventuallyServed(ctx, publisher.token, body, running.lineItemId);
    for (let i = 0; i < 5; i++) expect(servedLineItem(ctx, await serve(ctx, publisher.token, body))).not.toBe(later.lineItemId);
  });

  it('stops serving at ends_at, then completes the campaign and its line items, as reporting shows', async () => {
    const word = uniqueWord();
    const placement = (await createPlacement(ctx, publisher.id)).id;
    const body = { placement_id: placement, context: { query: word, response: '' } };
    // Served while its flight runs, then the flight is moved to end in a second. Created to end 3 s
    // later, it had to be activated, indexed and served within those 3 s, which a busy machine can miss.
    const ending = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } }, campaign: { ends_at: inMs(HOUR) } });
    await eventuallyServed(ctx, publisher.token, body, ending.lineItemId);
    expect((await call('PATCH', `/v1/advertiser/campaigns/${ending.campaignId}`, { ends_at: inMs(1000) })).statusCode).toBe(200);
    await eventually(async () => ((await serve(ctx, publisher.token, body)).json().ad === null ? true : undefined), 'the ended flight to serve nothing');

    const campaign = await eventually(async () => {
      const response = await call('GET', `/v1/advertiser/campaigns/${ending.campaignId}`);
      return response.json().data.status === 'completed' ? response.json().data : undefined;
    }, 'the ended campaign to be completed');
    expect(Date.parse(campaign.updated_at)).toBeGreaterThanOrEqual(Date.parse(campaign.ends_at));
    const lineItem = await call('GET', `/v1/advertiser/line-items/${ending.lineItemId}`);
    expect(lineItem.json().data.status).toBe('completed');
    const report = await ctx.app.inject({
      method: 'GET',
      url: '/v1/advertiser/reporting/campaigns',
      query: { campaign_ids: ending.campaignId },
      headers: { 'x-api-key': advertiser.key },
    });
    expect(report.statusCode).toBe(200);
    expect(report.json().data).toEqual([expect.objectContaining({ campaign_id: ending.campaignId, campaign_status: 'completed' })]);
  });
});
