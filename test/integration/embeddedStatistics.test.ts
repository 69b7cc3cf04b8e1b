import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';
import { analyzeChangedTables } from '../../src/store/embeddedStatistics.js';
import { campaignListSql } from '../../src/management/campaignRepository.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** An advertiser whose organization holds 3,000 paused campaigns, written in one statement. */
async function advertiserWith3000Campaigns() {
  const advertiser = await createAdvertiser(ctx);
  await ctx.stores.db.query(
    `INSERT INTO campaigns (organization_id, user_id, name, brand_name, status)
     SELECT (SELECT m.organization_id FROM memberships m WHERE m.user_id = $1::uuid), $1::uuid, 'campaign ' || n, 'Brand', 'paused' FROM generate_series(1, 3000) n`,
    [advertiser.user.id],
  );
  return advertiser;
}

// Embedded PGlite only: a server's autovacuum gathers its statistics, and the service leaves it to it.
describe.skipIf(testDatabaseUrl !== undefined)('statistics of embedded Postgres', () => {
  it('are gathered for tables that changed, so a deep cursor page of the campaign list is read in order from the index', async () => {
    const advertiser = await advertiserWith3000Campaigns();
    const { db } = ctx.stores;
    expect(await analyzeChangedTables(db)).toContain('public.campaigns');
    // Nothing changed since: nothing to gather.
    expect(await analyzeChangedTables(db)).not.toContain('public.campaigns');

    const { rows: cursor } = await db.query<{ created_at: string; id: string }>(
      'SELECT created_at::text AS created_at, id FROM campaigns WHERE user_id = $1 ORDER BY created_at, id OFFSET 100 LIMIT 1',
      [advertiser.user.id],
    );
    const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${campaignListSql(false)}`, [
      advertiser.organization.id,
      100,
      cursor[0]!.created_at,
      cursor[0]!.id,
    ]);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('Index Scan using campaigns_organization_user_created_idx');
    expect(text).not.toContain('Bitmap Heap Scan on campaigns');
  });

  it('vacuum the campaigns, so a page at an offset skips the rows before it on the index alone', async () => {
    const advertiser = await advertiserWith3000Campaigns();
    const { db } = ctx.stores;
    expect(await analyzeChangedTables(db)).toContain('public.campaigns');

    const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${campaignListSql(false, 'offset')}`, [
      advertiser.organization.id,
      100,
      2500,
    ]);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('Index Only Scan using campaigns_organization_user_created_idx');
    // Every page of the table is marked all-visible: no skipped entry reads its row.
    expect(text).toMatch(/Heap Fetches: 0\b/);
    expect(text).not.toMatch(/Heap Fetches: [1-9]/);
  });
});
