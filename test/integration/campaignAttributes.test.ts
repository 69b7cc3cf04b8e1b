import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { at, createReportCampaign, importEvents, type CampaignFixture } from '../helpers/reportingFixtures.js';
import { ADDRESSES, BROWSER_UA } from '../helpers/trackingFixtures.js';
import { addDays, todayUtc } from '../../src/utcDays.js';

/**
 * The campaign breakdown remembers its campaigns' names, statuses, brands, objectives and deletion
 * times until a catalog change (campaignAttributes.ts): a repeat reads only the page from Postgres.
 * To show that, a column the page does not read is renamed away (a DDL, which notifies nothing): a
 * repeat still answers, a campaign never shown cannot be read. The page itself (which campaigns, in
 * which order, and the deleted ones shown) is remembered too, until any write to campaigns,
 * deleted_campaigns or memberships (reportCampaigns.ts campaignPageRows, migrations/0020): each
 * kind of write is seen by the next repeat.
 */
const CAMPAIGNS_URL = '/v1/advertiser/reporting/campaigns';
const today = todayUtc();
const window = { date_from: addDays(today, -10), date_to: addDays(today, -1) };

let ctx: TestContext;
let key: string;
let userId: string;
let shown: CampaignFixture;
let placementId: string;

function report(query: Record<string, string> = {}) {
  return ctx.app.inject({ method: 'GET', url: CAMPAIGNS_URL, query: { ...window, ...query }, headers: { 'x-api-key': key } });
}

async function rows(): Promise<Array<Record<string, unknown>>> {
  const response = await report();
  expect(response.statusCode).toBe(200);
  return response.json().data;
}

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['campaigns', 'reporting']);
  key = advertiser.key;
  userId = advertiser.user.id;
  shown = await createReportCampaign(ctx, userId, { name: 'First name', brand_name: 'Acme', objective: 'awareness' });
  placementId = (await createPlacement(ctx, (await createPublisher(ctx)).id)).id;
  await importEvents(ctx, [
    { type: 'impression', time: at(addDays(today, -3)), line_item_id: shown.line_item_id, placement_id: placementId, ip: ADDRESSES.comcastResidential, user_agent: BROWSER_UA },
  ]);
});

afterAll(async () => {
  await ctx.close();
});

describe('the campaign breakdown, its campaigns remembered', () => {
  // Embedded only: on a Postgres server every page reads the attributes (campaignAttributes.ts), so
  // a renamed column is a failed report there, as it should be.
  it.skipIf(testDatabaseUrl)('answers a repeat with the attributes it remembers, and reads those of a campaign new to it', async () => {
    const first = await rows();
    await ctx.stores.db.query('ALTER TABLE campaigns RENAME COLUMN brand_name TO brand_name_away');
    try {
      expect(await rows()).toEqual(first);
    } finally {
      await ctx.stores.db.query('ALTER TABLE campaigns RENAME COLUMN brand_name_away TO brand_name');
    }
    const added = await createReportCampaign(ctx, userId, { name: 'Added later', brand_name: 'Beta', objective: null, status: 'paused' });
    expect(await rows()).toEqual([
      ...first,
      expect.objectContaining({ campaign_id: added.id, campaign_name: 'Added later', brand_name: 'Beta', objective: null, campaign_status: 'paused', impressions: 0 }),
    ]);
  });

  it.skipIf(testDatabaseUrl)('answers a repeat without reading its page from Postgres', async () => {
    const first = await rows();
    // Every query of the page and of the deleted campaigns reads memberships (the tenancy rule).
    await ctx.stores.db.query('ALTER TABLE memberships RENAME COLUMN organization_id TO organization_id_away');
    try {
      expect(await rows()).toEqual(first);
    } finally {
      await ctx.stores.db.query('ALTER TABLE memberships RENAME COLUMN organization_id_away TO organization_id');
    }
  });

  it('shows a campaign changed in Postgres as it is now, in the next repeat', async () => {
    expect((await rows())[0]).toMatchObject({ campaign_id: shown.id, campaign_name: 'First name', campaign_status: 'active' });
    await ctx.stores.db.query(`UPDATE campaigns SET name = 'Second name', status = 'paused', brand_name = 'Gamma', objective = NULL WHERE id = $1`, [shown.id]);
    expect((await rows())[0]).toMatchObject({ campaign_id: shown.id, campaign_name: 'Second name', campaign_status: 'paused', brand_name: 'Gamma', objective: null });
  });

  it('shows a deleted campaign with events in the window as completed, with its deletion time, in the next repeat', async () => {
    expect((await rows())[0]).toMatchObject({ campaign_id: shown.id, campaign_deleted_at: null });
    const deleted = await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${shown.id}`, headers: { 'x-api-key': key } });
    expect(deleted.statusCode).toBeLessThan(300);
    const [row] = await rows();
    expect(row).toMatchObject({ campaign_id: shown.id, campaign_name: 'Second name', campaign_status: 'completed', impressions: 1 });
    expect(row!.campaign_deleted_at).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
  });

  it('drops the campaigns of a user no longer a member of the organization, in the next repeat', async () => {
    expect((await rows()).map((row) => row.campaign_id)).toContain(shown.id);
    await ctx.stores.db.query('DELETE FROM memberships WHERE user_id = $1', [userId]);
    expect(await rows()).toEqual([]);
  });
});
