import { fieldText } from '../store/dataRows.js';
import type { Postgres, SqlExecutor } from '../store/postgres.js';

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

const TOKEN_COLUMNS = 'SELECT token_hash, publisher_id FROM publisher_tokens WHERE revoked_at IS NULL';
const PLACEMENT_COLUMNS = 'SELECT id, publisher_id, certification FROM placements';
// Only active line items of active campaigns whose flight has not ended: nothing else can ever be served.
const LINE_ITEM_COLUMNS = `SELECT li.id, li.campaign_id, c.brand_name, li.bid_type, li.bid_value::text AS bid_value,
       li.budget_daily::text AS budget_daily, li.budget_currency, li.budget_lifetime::text AS budget_lifetime,
       li.budget_pacing, li.targeting, li.frequency_cap, c.starts_at, c.ends_at
  FROM line_items li JOIN campaigns c ON c.id = li.campaign_id
  WHERE li.status = 'active' AND c.status = 'active' AND (c.ends_at IS NULL OR c.ends_at > now())`;

/** The fields of a creative row in the creatives' queries, by position (what creativeRows holds). */
export const CREATIVE_FIELDS = ['id', 'line_item_id', 'title', 'body', 'cta', 'destination_url', 'image_url'] as const;
const CREATIVE_SELECT = CREATIVE_FIELDS.map((field) => `cr.${field}`).join(', ');
const CREATIVE_COLUMNS = `SELECT ${CREATIVE_SELECT}
  FROM creatives cr JOIN line_items li ON li.id = cr.line_item_id JOIN campaigns c ON c.id = li.campaign_id
  WHERE li.status = 'active' AND c.status = 'active' AND cr.format = 'contextual_card'`;
const CREATIVE_ORDER = 'ORDER BY cr.line_item_id, cr.created_at, cr.id';
/**
 * At start, every card creative without the join: joining each to its line item and campaign took
 * a third of reading the catalog (100,000 index lookups), and a creative of a line item that is
 * not servable is never looked up (buildAdIndex takes the creatives of the line items it has).
 */
const ALL_CREATIVE_COLUMNS = `SELECT ${CREATIVE_SELECT}
  FROM creatives cr WHERE cr.format = 'contextual_card'`;

/**
 * Everything servable, in one REPEATABLE READ transaction so that the tables agree with each other
 * (no creative without its line item, no token of a deleted publisher), and the catalog-change
 * horizon of that snapshot: every change of a transaction below it is in these rows (see
 * catalogChanges.ts). `texts` are the line items as the engine wrote them, which the catalog
 * snapshot in DATA_DIR stores (catalogSnapshot.ts). The creatives stay the engine's DataRow bytes
 * (`creativeRows`, in line item order; `creatives` is empty): the index parses a line item's when
 * it is first served (creativeGroups.ts), as after a restart. Decoding, parsing and building all
 * 150,000 of them was 0.5-0.7 s of a first start at 100,000 line items, and the engine writes
 * plain rows in half the time it takes to write them as JSON (0.25-0.35 s against 0.6-0.7).
 */
export async function loadCatalog(db: Postgres): Promise<CatalogRows & { horizon: string; creativeRows: Buffer; texts: CatalogTexts }> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    // The first query takes the snapshot, so the horizon is that of every row read below.
    const horizon = await tx.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
    const tokens = await tx.query<CatalogRows['tokens'][number]>(TOKEN_COLUMNS);
    const placements = await tx.query<CatalogRows['placements'][number]>(PLACEMENT_COLUMNS);
    const lineItems = await jsonText(tx, LINE_ITEM_COLUMNS);
    const creativeRows = await tx.dataRows(`${ALL_CREATIVE_COLUMNS} ${CREATIVE_ORDER}`);
    return {
      horizon: horizon.rows[0]!.horizon,
      tokens: tokens.rows,
      placements: placements.rows,
      lineItems: parseLineItems(lineItems),
      creatives: [],
      creativeRows,
      texts: { lineItems },
    };
  });
}

/** The line items of a full read as the engine wrote them: a JSON array of rows. */
export interface CatalogTexts {
  lineItems: string;
}

/** A creative row from the DataRow read into `bounds` (readDataRow of CREATIVE_FIELDS.length fields). */
export function creativeRowOf(bytes: Buffer, bounds: Int32Array): CreativeRow {
  return {
    id: fieldText(bytes, bounds, 0)!,
    line_item_id: fieldText(bytes, bounds, 1)!,
    title: fieldText(bytes, bounds, 2)!,
    body: fieldText(bytes, bounds, 3)!,
    cta: fieldText(bytes, bounds, 4)!,
    destination_url: fieldText(bytes, bounds, 5)!,
    image_url: fieldText(bytes, bounds, 6),
  };
}

/** The queries whose rows make the catalog: a snapshot written by other queries is not read (catalogSnapshot.ts). */
export const CATALOG_QUERIES = [TOKEN_COLUMNS, PLACEMENT_COLUMNS, LINE_ITEM_COLUMNS, ALL_CREATIVE_COLUMNS, CREATIVE_ORDER] as const;

/**
 * Rows as one JSON text built by the engine, parsed at once: with 100,000 line items this takes
 * half the time of decoding them row by row (embedded PGlite decodes each row's fields in
 * JavaScript). Timestamps arrive as ISO text. One text holds at most 1 GB in Postgres: some 2.5
 * million line items (430 bytes each) or 2.8 million creatives (375 bytes each) here. (Paging by line item id
 * was tried: each page's join took 50 s on PGlite.)
 */
async function jsonText(tx: SqlExecutor, sql: string): Promise<string> {
  const { rows } = await tx.query<{ rows: string }>(`SELECT coalesce(json_agg(t), '[]')::text AS rows FROM (${sql}) t`);
  return rows[0]!.rows;
}

/** Line item rows from their JSON text, with their flight's timestamps as Dates again. */
export function parseLineItems(text: string): LineItemRow[] {
  return reviveFlights(JSON.parse(text) as LineItemRow[]);
}

/** Line item rows whose flight timestamps went through JSON (ISO text) made Dates again, in place. */
export function reviveFlights(rows: LineItemRow[]): LineItemRow[] {
  for (const row of rows) {
    if (row.starts_at !== null) row.starts_at = new Date(row.starts_at);
    if (row.ends_at !== null) row.ends_at = new Date(row.ends_at);
  }
  return rows;
}

/** What a batch of catalog changes names: the rows to read again. */
export interface CatalogKeys {
  tokenHashes: string[];
  placementIds: string[];
  lineItemIds: string[];
  /** Every line item of these campaigns is read again. */
  campaignIds: string[];
}

/**
 * The servable rows among those the keys name, in one snapshot like loadCatalog. A key with no row
 * here was deleted, revoked, paused or ended: the index drops it.
 */
export async function loadCatalogPart(db: Postgres, keys: CatalogKeys): Promise<CatalogRows> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const tokens = keys.tokenHashes.length === 0 ? { rows: [] } : await tx.query<CatalogRows['tokens'][number]>(`${TOKEN_COLUMNS} AND token_hash = ANY($1)`, [keys.tokenHashes]);
    const placements = keys.placementIds.length === 0 ? { rows: [] } : await tx.query<CatalogRows['placements'][number]>(`${PLACEMENT_COLUMNS} WHERE id = ANY($1)`, [keys.placementIds]);
    const lineItemFilter = 'AND (li.id = ANY($1::uuid[]) OR li.campaign_id = ANY($2::uuid[]))';
    const noLineItems = keys.lineItemIds.length === 0 && keys.campaignIds.length === 0;
    const params = [keys.lineItemIds, keys.campaignIds];
    const lineItems = noLineItems ? { rows: [] } : await tx.query<LineItemRow>(`${LINE_ITEM_COLUMNS} ${lineItemFilter}`, params);
    const creatives = noLineItems ? { rows: [] } : await tx.query<CreativeRow>(`${CREATIVE_COLUMNS} ${lineItemFilter} ${CREATIVE_ORDER}`, params);
    return { tokens: tokens.rows, placements: placements.rows, lineItems: lineItems.rows, creatives: creatives.rows };
  });
}
