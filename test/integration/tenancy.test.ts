import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { addUser, createAdvertiser, createApiKey, createOrganization } from '../helpers/factories.js';
import { asAdvertiser, composeBody, validCreative } from '../helpers/managementFactories.js';
import { importEvents } from '../helpers/reportingFixtures.js';
import {
  ADDRESSES,
  BROWSER_UA,
  clickedServe,
  trackedLineItem,
  waitForEvents,
  type TrackedLineItem,
} from '../helpers/trackingFixtures.js';

// One tenancy rule (src/management/campaignTenancy.ts) guards every route that reads or writes
// campaigns: each is tried here with another organization's ids, and each must show nothing of them.
// Twice: from an organization with its own users, and from one that the campaign's own user has
// joined too (an agency's person serving two clients), which must not see the first client's campaigns.

let ctx: TestContext;
let owner: TrackedLineItem;
let ownerUserId: string;
let clickId: string;
let stranger: { key: string };
let sharedUserOrganization: { key: string };

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  owner = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 0.4 });
  ownerUserId = (await ctx.stores.db.query<{ user_id: string }>('SELECT user_id FROM campaigns WHERE id = $1', [owner.campaignId])).rows[0]!.user_id;
  clickId = await clickedServe(ctx, owner, 'CPC', 400_000_000, { reader: ADDRESSES.comcastResidential });
  const line = { type: 'impression' as const, time: new Date().toISOString(), line_item_id: owner.lineItemId, placement_id: owner.placementId, user_agent: BROWSER_UA };
  await importEvents(ctx, [{ ...line, ip: ADDRESSES.comcastResidential }, { ...line, ip: ADDRESSES.awsV4 }]);
  await waitForEvents(ctx, owner.lineItemId, 4);
  stranger = await createAdvertiser(ctx);
  const { rows } = await ctx.stores.db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [ownerUserId]);
  const second = await createOrganization(ctx);
  await addUser(ctx, second.id, rows[0]!.email);
  sharedUserOrganization = { key: (await createApiKey(ctx, second.id, ['campaigns', 'reporting'])).key };
});

afterAll(async () => {
  await ctx.close();
});

describe.each([
  ['an organization with its own users', () => stranger.key],
  ["an organization the campaign's user also belongs to", () => sharedUserOrganization.key],
])("tenancy: another organization's campaign is invisible on every route that uses the rule, to %s", (_, otherKey) => {
  it('answers 404 not_found on every campaign and line item route, and changes nothing', async () => {
    const { campaignId, lineItemId } = owner;
    const routes = [
      ['GET', `/v1/advertiser/campaigns/${campaignId}`, undefined],
      ['PATCH', `/v1/advertiser/campaigns/${campaignId}`, { name: 'renamed' }],
      ['POST', `/v1/advertiser/campaigns/${campaignId}/duplicate`, undefined],
      ['POST', `/v1/advertiser/campaigns/${campaignId}/activate`, undefined],
      ['GET', `/v1/advertiser/campaigns/${campaignId}/line-items`, undefined],
      ['POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 't' }],
      ['GET', `/v1/advertiser/line-items/${lineItemId}`, undefined],
      ['PATCH', `/v1/advertiser/line-items/${lineItemId}`, { title: 'renamed' }],
      ['PUT', `/v1/advertiser/line-items/${lineItemId}/budget`, { daily: 5, currency: 'USD' }],
      ['PUT', `/v1/advertiser/line-items/${lineItemId}/bids`, { bid_type: 'cpc', bid_value: 1 }],
      ['PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, {}],
      ['POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [validCreative] }],
      ['POST', `/v1/advertiser/line-items/${lineItemId}/match-preview`, { context: { query: 'spring shoes?', response: '' } }],
      ['DELETE', `/v1/advertiser/campaigns/${campaignId}`, undefined],
    ] as const;
    for (const [method, url, payload] of routes) {
      const response = await asAdvertiser(ctx, otherKey())(method, url, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    const asOwner = asAdvertiser(ctx, owner.key);
    expect((await asOwner('GET', `/v1/advertiser/campaigns/${campaignId}`)).json().data).toMatchObject({ name: 'Spring launch', status: 'paused' });
    expect((await asOwner('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data).toMatchObject({ bids: { bid_type: 'CPC', bid_value: 0.4 }, creatives: [expect.anything()] });
  });

  it('leaves it out of the campaign list', async () => {
    const listed = async (key: string) =>
      ((await asAdvertiser(ctx, key)('GET', '/v1/advertiser/campaigns')).json().data as Array<{ id: string }>).map((campaign) => campaign.id);
    expect(await listed(owner.key)).toContain(owner.campaignId);
    expect(await listed(otherKey())).not.toContain(owner.campaignId);
  });

  it('reports nothing of it: campaign and daily breakdowns, traffic quality', async () => {
    const window = `date_from=${yesterday()}&date_to=${today()}&campaign_ids=${owner.campaignId}`;
    const report = async (key: string, query: string) =>
      (await asAdvertiser(ctx, key)('GET', `/v1/advertiser/reporting/${query}&${window}`)).json().data as Array<Record<string, unknown>>;
    const impressions = (rows: Array<Record<string, unknown>>) => rows.reduce((sum, row) => sum + Number(row.impressions), 0);

    // The owner sees the campaign's events, so each check below could fail.
    expect(await report(owner.key, 'campaigns?breakdown=campaign')).toEqual([expect.objectContaining({ campaign_id: owner.campaignId, impressions: 2, clicks: 1 })]);
    expect(impressions(await report(owner.key, 'campaigns?breakdown=daily'))).toBe(2);
    expect(await report(owner.key, 'traffic-quality?format=json')).toEqual([expect.objectContaining({ campaign_id: owner.campaignId, ivt_reason: 'datacenter' })]);

    expect(await report(otherKey(), 'campaigns?breakdown=campaign')).toEqual([]);
    expect(impressions(await report(otherKey(), 'campaigns?breakdown=daily'))).toBe(0);
    expect(await report(otherKey(), 'traffic-quality?format=json')).toEqual([]);
  });

  it('answers 404 not_found to a conversion of its click', async () => {
    const conversionId = `tenancy-${otherKey().slice(-8)}`;
    const response = await asAdvertiser(ctx, otherKey())('POST', '/v1/advertiser/conversions', { click_id: clickId, conversion_id: conversionId });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
    const owned = await asAdvertiser(ctx, owner.key)('POST', '/v1/advertiser/conversions', { click_id: clickId, conversion_id: conversionId });
    expect(owned.statusCode).toBe(201);
  });
});

describe("tenancy: another organization's users", () => {
  it("answers 403 forbidden to create, compose or validate a campaign for the other organization's user", async () => {
    for (const [url, payload] of [
      ['/v1/advertiser/campaigns', { name: 'n', brand_name: 'b', user_id: ownerUserId }],
      ['/v1/advertiser/campaigns/compose', composeBody(ownerUserId)],
      ['/v1/advertiser/campaigns/validate', composeBody(ownerUserId)],
    ] as const) {
      const response = await asAdvertiser(ctx, stranger.key)('POST', url, payload);
      expect(response.statusCode, url).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
    }
    const { rows } = await ctx.stores.db.query('SELECT 1 FROM campaigns WHERE user_id = $1', [ownerUserId]);
    expect(rows).toHaveLength(1);
  });
});

describe('tenancy: a user who belongs to two organizations', () => {
  it('keeps each campaign in the organization whose key made it', async () => {
    const made = await asAdvertiser(ctx, sharedUserOrganization.key)('POST', '/v1/advertiser/campaigns', {
      name: 'Second client',
      brand_name: 'Second',
      user_id: ownerUserId,
    });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id as string;
    const listed = async (key: string) =>
      ((await asAdvertiser(ctx, key)('GET', '/v1/advertiser/campaigns?limit=100')).json().data as Array<{ id: string }>).map((campaign) => campaign.id);
    expect(await listed(sharedUserOrganization.key)).toEqual([id]);
    expect(await listed(owner.key)).toContain(owner.campaignId);
    expect(await listed(owner.key)).not.toContain(id);
    expect((await asAdvertiser(ctx, owner.key)('GET', `/v1/advertiser/campaigns/${id}`)).statusCode).toBe(404);
    // A copy stays in the organization of the campaign it copies.
    const copy = await asAdvertiser(ctx, sharedUserOrganization.key)('POST', `/v1/advertiser/campaigns/${id}/duplicate`);
    expect(copy.statusCode).toBe(201);
    const [, copyId] = await listed(sharedUserOrganization.key);
    expect(await listed(sharedUserOrganization.key)).toEqual([id, expect.any(String)]);
    expect(await listed(owner.key)).not.toContain(copyId);
  });
});
