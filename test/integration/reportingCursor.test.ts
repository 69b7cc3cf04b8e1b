import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { contractSchema } from '../helpers/contract.js';
import { createAdvertiser } from '../helpers/factories.js';
import { campaignReport, type CampaignRow } from '../../src/reporting/campaignReport.js';
import { CampaignAttributes } from '../../src/reporting/campaignAttributes.js';
import { KeptCampaignFigures } from '../../src/reporting/keptCampaignFigures.js';
import { KeptReachWrites } from '../../src/reporting/keptReachWrites.js';

const CAMPAIGNS_URL = '/v1/advertiser/reporting/campaigns';
const matchesReport = contractSchema('#/components/schemas/AdvertiserReportingResponse');

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** `count` campaigns of the user, one second apart, oldest first; their ids in that order. */
async function bulkCampaigns(userId: string, count: number): Promise<string[]> {
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO campaigns (organization_id, user_id, name, brand_name, status, created_at)
     SELECT (SELECT m.organization_id FROM memberships m WHERE m.user_id = $1::uuid), $1, 'bulk ' || n, 'Bulk', 'active', timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second'
     FROM generate_series(0, $2::int - 1) AS n
     RETURNING id, created_at`,
    [userId, count],
  );
  return rows.map((row) => row.id);
}

function report(apiKey: string, query: Record<string, string>) {
  return ctx.app.inject({ method: 'GET', url: CAMPAIGNS_URL, query, headers: { 'x-api-key': apiKey } });
}

describe('campaign report: cursor paging', () => {
  it('by cursor, a campaign deleted between two pages shifts nothing; offset keeps its meaning', async () => {
    const advertiser = await createAdvertiser(ctx);
    const ids = await bulkCampaigns(advertiser.user.id, 6);
    const first = await report(advertiser.key, { limit: '2' });
    expect(matchesReport(first.json()), JSON.stringify(matchesReport.errors)).toBe(true);
    expect(first.json().data.map((row: CampaignRow) => row.campaign_id)).toEqual(ids.slice(0, 2));
    const deleted = await ctx.app.inject({ method: 'DELETE', url: `/v1/advertiser/campaigns/${ids[1]}`, headers: { 'x-api-key': advertiser.key } });
    expect(deleted.statusCode).toBe(204);

    const next = await report(advertiser.key, { limit: '2', cursor: first.json().pagination.next_cursor });
    expect(matchesReport(next.json()), JSON.stringify(matchesReport.errors)).toBe(true);
    expect(next.json().data.map((row: CampaignRow) => row.campaign_id)).toEqual(ids.slice(2, 4));
    expect(next.json().pagination).toEqual({ limit: 2, offset: 0, total: 2, has_more: true, next_cursor: expect.any(String) });
    const byOffset = await report(advertiser.key, { limit: '2', offset: '2' });
    expect(byOffset.json().data.map((row: CampaignRow) => row.campaign_id)).toEqual(ids.slice(3, 5));
  });

  it('starts a CSV export after the cursor', async () => {
    const advertiser = await createAdvertiser(ctx);
    const ids = await bulkCampaigns(advertiser.user.id, 5);
    const first = await report(advertiser.key, { limit: '2' });
    const csv = await report(advertiser.key, { format: 'csv', limit: '100000', cursor: first.json().pagination.next_cursor });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\r\n').slice(1, -1).map((line) => line.split(',')[0])).toEqual(ids.slice(2));
  });

  it.each([
    ['a cursor that is not one', { cursor: '!!!' }],
    ['a cursor of another list', { cursor: Buffer.from('["2026-01-01T00:00:00.000000Z","chat-answer"]').toString('base64url') }],
    ['a cursor with another breakdown', { breakdown: 'daily', cursor: Buffer.from('["2026-01-01T00:00:00.000000Z","00000000-0000-4000-8000-000000000000"]').toString('base64url') }],
    ['a cursor with an offset', { offset: '3', cursor: Buffer.from('["2026-01-01T00:00:00.000000Z","00000000-0000-4000-8000-000000000000"]').toString('base64url') }],
  ])('answers 400 bad_request in the envelope for %s', async (_what, query) => {
    const advertiser = await createAdvertiser(ctx, ['reporting']);
    const response = await report(advertiser.key, query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'bad_request', message: expect.any(String), details: [{ path: expect.any(String), message: expect.any(String) }] },
    });
  });
});

describe('campaign report: a long export', () => {
  it('continues after the last campaign sent, so a campaign deleted during the export shifts nothing', async () => {
    const advertiser = await createAdvertiser(ctx);
    // More than one batch (1,000 campaigns): the export reads a second page after the first is sent.
    const ids = await bulkCampaigns(advertiser.user.id, 1500);
    const today = new Date().toISOString().slice(0, 10);
    const batches = campaignReport({ ...ctx.stores, reachWrites: new KeptReachWrites(ctx.stores.ch, ctx.app.log, { inc: () => undefined }), campaignAttributes: new CampaignAttributes(ctx.stores.db), campaignFigures: new KeptCampaignFigures() }, {
      organizationId: advertiser.organization.id,
      campaignIds: null,
      dateFrom: today,
      dateTo: today,
      limit: 100_000,
      offset: 0,
    });
    const first = await batches.next();
    expect((first.value as CampaignRow[]).map((row) => row.campaign_id)).toEqual(ids.slice(0, 1000));
    await ctx.stores.db.query('DELETE FROM campaigns WHERE id = $1', [ids[0]]);
    const rest: string[] = [];
    for await (const batch of batches) rest.push(...batch.map((row) => row.campaign_id));
    expect(rest).toEqual(ids.slice(1000));
  });
});
