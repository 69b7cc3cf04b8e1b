import { fieldText, readDataRow } from '../store/dataRows.js';
import { parseTimestamptz } from '../store/timestampText.js';
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
 * catalogChanges.ts). The line items and creatives are read as the engine's DataRow bytes
 * (src/store/dataRows.ts), which the catalog snapshot in DATA_DIR keeps as they are
 * (catalogSnapshot.ts): `lineItemRows` decoded into `lineItems` (lineItemRowsOf, as a restart
 * decodes the base's), and `creativeRows` (in line item order; `creatives` is empty) parsed when a
 * line item is first served (creativeGroups.ts), as after a restart. At 100,000 line items the
 * engine writes plain rows in less than half the time it takes to write them as one JSON text
 * (0.36-0.40 s against 0.9 s for the line items with PGlite's decoding of that text into a string,
 * 0.25-0.35 s against 0.6-0.7 for the creatives), and decoding the line items' rows costs what
 * JSON.parse of that text did (0.29-0.31 s against 0.28); decoding, parsing and building all
 * 150,000 creatives was 0.5-0.7 s of a first start.
 */
export async function loadCatalog(db: Postgres): Promise<CatalogRows & CatalogRead> {
  const read = await readCatalog(db);
  return { ...read, lineItems: lineItemRowsOf(read.lineItemRows), creatives: [] };
}

/** What loadCatalog reads, before the line items are decoded. */
export interface CatalogRead extends Pick<CatalogRows, 'tokens' | 'placements'> {
  horizon: string;
  lineItemRows: Buffer;
  creativeRows: Buffer;
}

/**
 * On a server, how long each query of the full read may wait for its answer, in place of
 * POSTGRES_QUERY_TIMEOUT_MS: it reads whole tables (100,000 line items and 150,000 creatives, 76 MB,
 * in 0.84-0.96 s on embedded PGlite, bench/README.md session 31), so 2 minutes leave room for a
 * catalog many times that on a slower link, and a server that stops answering still fails the read
 * instead of holding the start or the index's rebuild for as long as it lasts.
 */
const FULL_READ_QUERY_TIMEOUT_MS = 120_000;

/** loadCatalog's transaction alone: the line items left as DataRows, so that a start decodes them while the creatives' rows are walked in a worker (AdIndexRefresher). */
export async function readCatalog(db: Postgres): Promise<CatalogRead> {
  return db.transaction(
    async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      // The first query takes the snapshot, so the horizon is that of every row read below.
      const horizon = await tx.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
      const tokens = await tx.query<CatalogRows['tokens'][number]>(TOKEN_COLUMNS);
      const placements = await tx.query<CatalogRows['placements'][number]>(PLACEMENT_COLUMNS);
      const lineItemRows = await tx.dataRows(LINE_ITEM_COLUMNS);
      const creativeRows = await tx.dataRows(`${ALL_CREATIVE_COLUMNS} ${CREATIVE_ORDER}`);
      return { horizon: horizon.rows[0]!.horizon, tokens: tokens.rows, placements: placements.rows, lineItemRows, creativeRows };
    },
    { queryTimeoutMs: FULL_READ_QUERY_TIMEOUT_MS },
  );
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

/** How many fields a row of LINE_ITEM_COLUMNS has: a DataRow of any other count is refused (readDataRow). */
const LINE_ITEM_FIELD_COUNT = 13;

/**
 * The line item rows in `bytes`, DataRows of LINE_ITEM_COLUMNS (a full read, or the catalog
 * snapshot's base that kept them), fields by position: the text columns as text, the targeting and
 * frequency cap (jsonb, written as JSON text) parsed, the flight's timestamps read as the engine's
 * query() reads a timestamptz (parseTimestamptz, as node-postgres does on a server).
 */
export function lineItemRowsOf(bytes: Buffer): LineItemRow[] {
  const bounds = new Int32Array(LINE_ITEM_FIELD_COUNT * 2);
  const rows: LineItemRow[] = [];
  for (let at = 0; at < bytes.length; ) {
    at = readDataRow(bytes, at, bounds);
    rows.push({
      id: fieldText(bytes, bounds, 0)!,
      campaign_id: fieldText(bytes, bounds, 1)!,
      brand_name: fieldText(bytes, bounds, 2)!,
      bid_type: fieldText(bytes, bounds, 3),
      bid_value: fieldText(bytes, bounds, 4),
      budget_daily: fieldText(bytes, bounds, 5),
      budget_currency: fieldText(bytes, bounds, 6),
      budget_lifetime: fieldText(bytes, bounds, 7),
      budget_pacing: fieldText(bytes, bounds, 8)!,
      targeting: jsonField(bytes, bounds, 9),
      frequency_cap: jsonField(bytes, bounds, 10),
      starts_at: timeField(bytes, bounds, 11),
      ends_at: timeField(bytes, bounds, 12),
    });
  }
  return rows;
}

/** Each line item's index in `bytes` (DataRows of LINE_ITEM_COLUMNS, as lineItemRowsOf decodes them, in order) by its id, the rows otherwise left as they are. */
export function lineItemIndexes(bytes: Buffer): Map<string, number> {
  const bounds = new Int32Array(LINE_ITEM_FIELD_COUNT * 2);
  const indexes = new Map<string, number>();
  for (let at = 0, index = 0; at < bytes.length; index++) {
    at = readDataRow(bytes, at, bounds);
    indexes.set(fieldText(bytes, bounds, 0)!, index);
  }
  return indexes;
}

function jsonField(bytes: Buffer, bounds: Int32Array, index: number): unknown {
  const text = fieldText(bytes, bounds, index);
  return text === null ? null : JSON.parse(text);
}

function timeField(bytes: Buffer, bounds: Int32Array, index: number): Date | null {
  const text = fieldText(bytes, bounds, index);
  if (text === null) return null;
  const time = parseTimestamptz(text);
  // 'infinity' and '-infinity' (no API writes them) as an invalid Date, as new Date() made of their JSON text.
  return typeof time === 'number' ? new Date(time) : time;
}

/** The queries whose rows make the catalog: a snapshot written by other queries is not read (catalogSnapshot.ts). */
export const CATALOG_QUERIES = [TOKEN_COLUMNS, PLACEMENT_COLUMNS, LINE_ITEM_COLUMNS, ALL_CREATIVE_COLUMNS, CREATIVE_ORDER] as const;

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
