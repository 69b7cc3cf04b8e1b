import { randomUUID } from 'node:crypto';
import type { TestContext } from './testApp.js';

/**
 * Reporting tests set up campaigns straight in Postgres (reporting only reads them, and needs
 * statuses and empty objectives the Management API does not create) and put events in through the
 * operators' NDJSON import, which classifies and prices them like live traffic.
 */

export interface CampaignFixture {
  id: string;
  name: string;
  brand_name: string;
  objective: string | null;
  status: string;
  line_item_id: string;
}

/** A campaign with one line item bidding `bid` (USD) on `bidType`, the way the import prices its events. */
export async function createReportCampaign(
  ctx: TestContext,
  userId: string,
  fields: Partial<Pick<CampaignFixture, 'name' | 'brand_name' | 'objective' | 'status'>> = {},
  bidType: 'tCPM' | 'CPC' | 'CPA' = 'tCPM',
  bid = 2.5,
): Promise<CampaignFixture> {
  const name = fields.name ?? `campaign-${randomUUID().slice(0, 8)}`;
  const brandName = fields.brand_name ?? 'Acme';
  const objective = fields.objective === undefined ? 'awareness' : fields.objective;
  const status = fields.status ?? 'active';
  const { rows } = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO campaigns (organization_id, user_id, name, brand_name, objective, status)
     VALUES ((SELECT m.organization_id FROM memberships m WHERE m.user_id = $1::uuid), $1, $2, $3, $4, $5) RETURNING id`,
    [userId, name, brandName, objective, status],
  );
  const campaignId = rows[0]!.id;
  const lineItem = await ctx.stores.db.query<{ id: string }>(
    `INSERT INTO line_items (campaign_id, title, status, budget_daily, budget_currency, bid_type, bid_value)
     VALUES ($1, 'line item', 'active', 1000, 'USD', $2, $3) RETURNING id`,
    [campaignId, bidType, bid],
  );
  return { id: campaignId, name, brand_name: brandName, objective, status, line_item_id: lineItem.rows[0]!.id };
}

/** One line of POST /v1/admin/events/import. */
export interface ImportLine {
  type: 'impression' | 'click' | 'conversion';
  time: string;
  line_item_id: string;
  placement_id: string;
  ip: string;
  user_agent?: string;
  revenue_usd?: number;
}

/** Imports the lines (the route answers once they are in ClickHouse); every line must be stored. */
export async function importEvents(ctx: TestContext, lines: ImportLine[]): Promise<{ accepted: number; invalid: number }> {
  const response = await ctx.admin({
    method: 'POST',
    url: '/v1/admin/events/import',
    headers: { 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => JSON.stringify(line)).join('\n'),
  });
  const summary = response.json().data;
  if (response.statusCode !== 200 || summary.rejected !== 0) throw new Error(`import: ${response.statusCode} ${response.body}`);
  return summary;
}

/** An ISO timestamp of a UTC date ('YYYY-MM-DD') at `time`. */
export function at(date: string, time = '12:00:00.000'): string {
  return `${date}T${time}Z`;
}


/** Every metric of the spec's report row for a campaign or day without events: rates are 0, never null. */
export const ZERO_METRICS = {
  impressions: 0,
  clicks: 0,
  conversions: 0,
  spend_usd: 0,
  revenue_usd: 0,
  ctr: 0,
  cpc_usd: 0,
  cpa_usd: 0,
  cvr: 0,
  ecpm_usd: 0,
  roas: 0,
};
