import type { Postgres } from '../src/store/postgres.js';
import type { GeneratedCampaign } from './catalogGenerator.js';

const ROWS_PER_STATEMENT = 2000;

/**
 * Bulk SQL: the management API would take minutes for 100,000 line items (a transaction per
 * compose), so the bench writes the same rows directly, a few thousand per statement through
 * jsonb_to_recordset. Campaigns and line items get `status` (active for serving, paused for the
 * management scenario); the catalog_changes triggers fire as for any other change. Flights, lifetime
 * budgets, pacing and frequency caps are written when the catalog has them (serve-controls).
 */
export async function seedCatalog(db: Postgres, userId: string, campaigns: readonly GeneratedCampaign[], status: 'active' | 'paused'): Promise<void> {
  const campaignRows = campaigns.map((campaign) => ({
    id: campaign.id,
    user_id: userId,
    name: campaign.input.name,
    brand_name: campaign.input.brand_name,
    objective: campaign.objective,
    status,
    starts_at: campaign.startsAt,
    ends_at: campaign.endsAt,
  }));
  const lineItemRows = campaigns.flatMap((campaign) =>
    campaign.lineItems.map(({ id, stored }) => ({
      id,
      campaign_id: campaign.id,
      title: stored.title,
      objective: stored.objective ?? null,
      primary_kpi: stored.primary_kpi ?? null,
      status: status === 'active' ? 'active' : 'draft',
      budget_daily: stored.budget?.daily ?? null,
      budget_currency: stored.budget?.currency ?? null,
      budget_lifetime: stored.budget?.lifetime ?? null,
      budget_pacing: stored.budget?.pacing ?? 'even',
      frequency_cap: stored.frequency_cap ?? null,
      bid_type: stored.bids?.bid_type ?? null,
      bid_value: stored.bids?.bid_value ?? null,
      targeting: stored.targeting ?? {},
    })),
  );
  const creativeRows = campaigns.flatMap((campaign) =>
    campaign.lineItems.flatMap(({ id, stored, creativeIds }) =>
      (stored.creatives ?? []).map((creative, index) => ({
        id: creativeIds[index],
        line_item_id: id,
        ...creative,
        image_url: creative.image_url ?? null,
      })),
    ),
  );
  await insertInChunks(
    db,
    campaignRows,
    `INSERT INTO campaigns (id, organization_id, user_id, name, brand_name, objective, status, starts_at, ends_at)
     SELECT id, (SELECT m.organization_id FROM memberships m WHERE m.user_id = r.user_id), user_id, name, brand_name, objective, status, starts_at, ends_at
     FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, user_id uuid, name text, brand_name text, objective text, status text,
       starts_at timestamptz, ends_at timestamptz)`,
  );
  await insertInChunks(
    db,
    lineItemRows,
    `INSERT INTO line_items (id, campaign_id, title, objective, primary_kpi, status, budget_daily, budget_currency, budget_lifetime,
       budget_pacing, frequency_cap, bid_type, bid_value, targeting)
     SELECT id, campaign_id, title, objective, primary_kpi, status, budget_daily, budget_currency, budget_lifetime,
       budget_pacing, frequency_cap, bid_type, bid_value, targeting
     FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, campaign_id uuid, title text, objective text, primary_kpi text, status text,
       budget_daily numeric, budget_currency text, budget_lifetime numeric, budget_pacing text, frequency_cap jsonb, bid_type text,
       bid_value numeric, targeting jsonb)`,
  );
  await insertInChunks(
    db,
    creativeRows,
    `INSERT INTO creatives (id, line_item_id, format, title, body, cta, destination_url, image_url)
     SELECT id, line_item_id, format, title, body, cta, destination_url, image_url
     FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, line_item_id uuid, format text, title text, body text, cta text,
       destination_url text, image_url text)`,
  );
}

async function insertInChunks(db: Postgres, rows: readonly object[], sql: string): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await db.query(sql, [JSON.stringify(rows.slice(start, start + ROWS_PER_STATEMENT))]);
  }
}
