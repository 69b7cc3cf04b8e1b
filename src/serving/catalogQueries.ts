import type { Postgres } from '../store/postgres.js';

/** What the ad index is built from: everything servable, one query per table. */
export interface CatalogRows {
  tokens: Array<{ token_hash: string; publisher_id: string }>;
  placements: Array<{ id: string; publisher_id: string; certification: string }>;
  lineItems: LineItemRow[];
  creatives: CreativeRow[];
}

export interface LineItemRow {
  id: string;
  campaign_id: string;
  brand_name: string;
  bid_type: string | null;
  bid_value: string | null;
  budget_daily: string | null;
  budget_currency: string | null;
  budget_lifetime: string | null;
  budget_pacing: string;
  targeting: unknown;
  frequency_cap: unknown;
  starts_at: Date | null;
  ends_at: Date | null;
}

export interface CreativeRow {
  id: string;
  line_item_id: string;
  title: string;
  body: string;
  cta: string;
  destination_url: string;
  image_url: string | null;
}

/**
 * The catalog version: a sequence every change to what can be served bumps (triggers in 0001).
 * Sequences are not transactional, so a bump is visible before its transaction commits; the
 * refresher rebuilds once more after a change to catch that case.
 */
export async function readCatalogVersion(db: Postgres): Promise<string> {
  const { rows } = await db.query<{ last_value: number; is_called: boolean }>('SELECT last_value, is_called FROM catalog_version');
  const row = rows[0]!;
  return `${row.last_value}:${row.is_called}`;
}

/**
 * Everything servable, in one REPEATABLE READ transaction so that the tables agree with each other
 * (no creative without its line item, no token of a deleted publisher). Only active line items of
 * active campaigns whose flight has not ended are loaded: nothing else can ever be served.
 */
export async function loadCatalog(db: Postgres): Promise<CatalogRows> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const tokens = await tx.query<CatalogRows['tokens'][number]>(
      'SELECT token_hash, publisher_id FROM publisher_tokens WHERE revoked_at IS NULL',
    );
    const placements = await tx.query<CatalogRows['placements'][number]>('SELECT id, publisher_id, certification FROM placements');
    const lineItems = await tx.query<LineItemRow>(
      `SELECT li.id, li.campaign_id, c.brand_name, li.bid_type, li.bid_value::text AS bid_value,
              li.budget_daily::text AS budget_daily, li.budget_currency, li.budget_lifetime::text AS budget_lifetime,
              li.budget_pacing, li.targeting, li.frequency_cap, c.starts_at, c.ends_at
       FROM line_items li JOIN campaigns c ON c.id = li.campaign_id
       WHERE li.status = 'active' AND c.status = 'active' AND (c.ends_at IS NULL OR c.ends_at > now())`,
    );
    const creatives = await tx.query<CreativeRow>(
      `SELECT cr.id, cr.line_item_id, cr.title, cr.body, cr.cta, cr.destination_url, cr.image_url
       FROM creatives cr JOIN line_items li ON li.id = cr.line_item_id JOIN campaigns c ON c.id = li.campaign_id
       WHERE li.status = 'active' AND c.status = 'active' AND cr.format = 'contextual_card'
       ORDER BY cr.line_item_id, cr.created_at, cr.id`,
    );
    return { tokens: tokens.rows, placements: placements.rows, lineItems: lineItems.rows, creatives: creatives.rows };
  });
}
