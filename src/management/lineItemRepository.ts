import type { SqlExecutor, TransactionExecutor } from '../store/postgres.js';
import type { Creative } from './creativeRepository.js';
import type { Bids, Budget, LineItemPatch } from './lineItemSchemas.js';
import type { Targeting } from './targetingSchema.js';
import type { FrequencyCap } from './frequencyCapSchema.js';
import type { BidType, LineItemStatus, Objective, PrimaryKpi } from './valueNormalization.js';
import { createdLineItemStatus } from './statusTransitions.js';
import { campaignOf } from './campaignTenancy.js';

interface LineItemRow {
  id: string;
  campaign_id: string;
  title: string;
  objective: Objective | null;
  primary_kpi: PrimaryKpi | null;
  status: LineItemStatus;
  budget_daily: string | null;
  budget_currency: string | null;
  budget_lifetime: string | null;
  budget_pacing: 'even' | 'asap';
  bid_type: BidType | null;
  bid_value: string | null;
  targeting: Targeting;
  frequency_cap: FrequencyCap | null;
  created_at: Date;
  updated_at: Date;
}

/** What a new line item is made of: its record but for the ids and times the database gives it. */
export interface NewLineItem {
  title: string;
  objective: Objective | null;
  primary_kpi: PrimaryKpi | null;
  status: LineItemStatus;
  budget: Budget | null;
  bids: Bids | null;
  targeting: Targeting;
  frequency_cap: FrequencyCap | null;
}

/** A line item as every route shows it, without its creatives (see LineItem). */
export interface LineItemRecord extends NewLineItem {
  id: string;
  campaign_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface LineItem extends LineItemRecord {
  creatives: Creative[];
}

const lineItemColumns = `li.id, li.campaign_id, li.title, li.objective, li.primary_kpi, li.status, li.budget_daily,
  li.budget_currency, li.budget_lifetime, li.budget_pacing, li.bid_type, li.bid_value, li.targeting, li.frequency_cap,
  li.created_at, li.updated_at`;

// A line item is visible when its campaign is (campaignTenancy.ts).
const visibleToOrganization = `EXISTS (SELECT 1 FROM campaigns c WHERE c.id = li.campaign_id AND ${campaignOf('$1', 'c')})`;

// numeric arrives as a string; the column is numeric(18, 6), so Number() is exact enough to show.
function toRecord(row: LineItemRow): LineItemRecord {
  return {
    id: row.id,
    campaign_id: row.campaign_id,
    title: row.title,
    objective: row.objective,
    primary_kpi: row.primary_kpi,
    status: row.status,
    budget:
      row.budget_daily === null || row.budget_currency === null
        ? null
        : {
            daily: Number(row.budget_daily),
            currency: row.budget_currency,
            lifetime: row.budget_lifetime === null ? null : Number(row.budget_lifetime),
            pacing: row.budget_pacing,
          },
    bids: row.bid_type === null || row.bid_value === null ? null : { bid_type: row.bid_type, bid_value: Number(row.bid_value) },
    targeting: row.targeting,
    frequency_cap: row.frequency_cap,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function insertLineItem(tx: SqlExecutor, campaignId: string, item: NewLineItem): Promise<LineItemRecord> {
  const { rows } = await tx.query<LineItemRow>(
    `INSERT INTO line_items AS li
       (campaign_id, title, objective, primary_kpi, status, budget_daily, budget_currency, bid_type, bid_value, targeting,
        budget_lifetime, budget_pacing, frequency_cap)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, 'even'), $13::jsonb)
     RETURNING ${lineItemColumns}`,
    [
      campaignId,
      item.title,
      item.objective,
      item.primary_kpi,
      item.status,
      item.budget?.daily.toFixed(6) ?? null,
      item.budget?.currency ?? null,
      item.bids?.bid_type ?? null,
      item.bids?.bid_value.toFixed(6) ?? null,
      JSON.stringify(item.targeting),
      item.budget?.lifetime?.toFixed(6) ?? null,
      item.budget?.pacing ?? null,
      item.frequency_cap === null ? null : JSON.stringify(item.frequency_cap),
    ],
  );
  return toRecord(rows[0]!);
}

/** Every line item of a campaign, oldest first. The caller has checked that the campaign is visible. */
export async function listLineItems(db: SqlExecutor, campaignId: string): Promise<LineItemRecord[]> {
  const { rows } = await db.query<LineItemRow>(
    `SELECT ${lineItemColumns} FROM line_items li WHERE li.campaign_id = $1 ORDER BY li.created_at, li.id`,
    [campaignId],
  );
  return rows.map(toRecord);
}

export async function findLineItem(db: SqlExecutor, organizationId: string, lineItemId: string): Promise<LineItemRecord | null> {
  const { rows } = await db.query<LineItemRow>(
    `SELECT ${lineItemColumns} FROM line_items li WHERE li.id = $2 AND ${visibleToOrganization}`,
    [organizationId, lineItemId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Like findLineItem, and holds the row until the transaction ends. */
export async function lockLineItem(tx: TransactionExecutor, organizationId: string, lineItemId: string): Promise<LineItemRecord | null> {
  const { rows } = await tx.query<LineItemRow>(
    `SELECT ${lineItemColumns} FROM line_items li WHERE li.id = $2 AND ${visibleToOrganization} FOR UPDATE`,
    [organizationId, lineItemId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Applies the given fields; null clears objective or primary_kpi. The caller has checked the transition. */
export async function updateLineItem(tx: SqlExecutor, lineItemId: string, patch: LineItemPatch): Promise<LineItemRecord> {
  const { rows } = await tx.query<LineItemRow>(
    `UPDATE line_items li SET
       title = COALESCE($2, li.title),
       objective = CASE WHEN $3::boolean THEN $4::text ELSE li.objective END,
       primary_kpi = CASE WHEN $5::boolean THEN $6::text ELSE li.primary_kpi END,
       status = COALESCE($7, li.status),
       frequency_cap = CASE WHEN $8::boolean THEN $9::jsonb ELSE li.frequency_cap END,
       updated_at = now()
     WHERE li.id = $1
     RETURNING ${lineItemColumns}`,
    [
      lineItemId,
      patch.title ?? null,
      patch.objective !== undefined,
      patch.objective ?? null,
      patch.primary_kpi !== undefined,
      patch.primary_kpi ?? null,
      patch.status ?? null,
      patch.frequency_cap !== undefined,
      patch.frequency_cap ? JSON.stringify(patch.frequency_cap) : null,
    ],
  );
  return toRecord(rows[0]!);
}

export async function setBudget(db: SqlExecutor, organizationId: string, lineItemId: string, budget: Budget) {
  const { rows } = await db.query<LineItemRow>(
    `UPDATE line_items li SET budget_daily = $3, budget_currency = $4, budget_lifetime = $5, budget_pacing = $6, updated_at = now()
     WHERE li.id = $2 AND ${visibleToOrganization}
     RETURNING ${lineItemColumns}`,
    [organizationId, lineItemId, budget.daily.toFixed(6), budget.currency, budget.lifetime?.toFixed(6) ?? null, budget.pacing],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function setBids(db: SqlExecutor, organizationId: string, lineItemId: string, bids: Bids) {
  const { rows } = await db.query<LineItemRow>(
    `UPDATE line_items li SET bid_type = $3, bid_value = $4, updated_at = now()
     WHERE li.id = $2 AND ${visibleToOrganization}
     RETURNING ${lineItemColumns}`,
    [organizationId, lineItemId, bids.bid_type, bids.bid_value.toFixed(6)],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function setTargeting(db: SqlExecutor, organizationId: string, lineItemId: string, targeting: Targeting) {
  const { rows } = await db.query<LineItemRow>(
    `UPDATE line_items li SET targeting = $3::jsonb, updated_at = now()
     WHERE li.id = $2 AND ${visibleToOrganization}
     RETURNING ${lineItemColumns}`,
    [organizationId, lineItemId, JSON.stringify(targeting)],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Marks a write to the line item that lives in another table (its creatives). */
export async function touchLineItem(tx: SqlExecutor, lineItemId: string): Promise<void> {
  await tx.query('UPDATE line_items SET updated_at = now() WHERE id = $1', [lineItemId]);
}

/** Activation: every line item of the campaign that is not completed becomes active; a paused one stays so when `keepPaused`. */
export async function activateLineItems(tx: SqlExecutor, campaignId: string, keepPaused: boolean): Promise<void> {
  await tx.query(
    `UPDATE line_items SET status = 'active', updated_at = now()
     WHERE campaign_id = $1 AND status <> 'completed' AND status <> 'active' AND NOT ($2 AND status = 'paused')`,
    [campaignId, keepPaused],
  );
}

/** Completing a campaign completes its line items: completed is final for both. */
export async function completeLineItems(tx: SqlExecutor, campaignId: string): Promise<void> {
  await tx.query(
    `UPDATE line_items SET status = 'completed', updated_at = now() WHERE campaign_id = $1 AND status <> 'completed'`,
    [campaignId],
  );
}

/** Copies the campaign's line items (as draft, with budget, bids, frequency cap and targeting) under another campaign. */
export async function copyLineItems(tx: SqlExecutor, fromCampaignId: string, toCampaignId: string) {
  const { rows } = await tx.query<LineItemRow & { source_id: string }>(
    `WITH source AS (
       SELECT id, title, objective, primary_kpi, budget_daily, budget_currency, budget_lifetime, budget_pacing,
              frequency_cap, bid_type, bid_value, targeting,
              gen_random_uuid() AS new_id, row_number() OVER (ORDER BY created_at, id) AS position
       FROM line_items WHERE campaign_id = $1
     ), copied AS (
       -- one microsecond apart, so that the copies list in the order of their sources
       INSERT INTO line_items AS li (id, campaign_id, title, objective, primary_kpi, status, budget_daily,
         budget_currency, budget_lifetime, budget_pacing, frequency_cap, bid_type, bid_value, targeting, created_at)
       SELECT new_id, $2, title, objective, primary_kpi, $3, budget_daily, budget_currency, budget_lifetime,
              budget_pacing, frequency_cap, bid_type, bid_value, targeting, now() + position * interval '1 microsecond'
       FROM source
       RETURNING ${lineItemColumns}
     )
     SELECT copied.*, source.id AS source_id FROM copied JOIN source ON source.new_id = copied.id
     ORDER BY source.position`,
    [fromCampaignId, toCampaignId, createdLineItemStatus],
  );
  return rows.map((row) => ({ sourceId: row.source_id, lineItem: toRecord(row) }));
}
