import type { Postgres, SqlExecutor, TransactionExecutor } from '../store/postgres.js';
import type { CampaignPatch } from './campaignSchemas.js';
import type { CampaignStatus, Objective } from './valueNormalization.js';
import { createdCampaignStatus } from './statusTransitions.js';
import { campaignOf, memberOf, membersOf } from './campaignTenancy.js';
import { sortTimeSql, type KeysetPosition, type PageRequest } from '../http/keysetPaging.js';
import { jsonTimeSql } from '../store/timestampText.js';

export interface Campaign {
  id: string;
  name: string;
  brand_name: string;
  user_id: string;
  objective: Objective | null;
  status: CampaignStatus;
  starts_at: Date | null;
  ends_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const campaignColumns =
  'c.id, c.name, c.brand_name, c.user_id, c.objective, c.status, c.starts_at, c.ends_at, c.created_at, c.updated_at';

// Tenancy (campaignTenancy.ts): the campaign's user is a member of the key's organization.

export async function isMember(db: SqlExecutor, organizationId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 WHERE ${memberOf('$1::uuid', '$2::uuid')}`, [organizationId, userId]);
  return rows.length > 0;
}

export interface NewCampaign {
  user_id: string;
  name: string;
  brand_name: string;
  objective: Objective | null;
  starts_at: string | null;
  ends_at: string | null;
}

/** Inserts a paused campaign in one statement with the membership check; null when the user is not a member. */
export async function insertCampaign(db: SqlExecutor, organizationId: string, campaign: NewCampaign): Promise<Campaign | null> {
  const { rows } = await db.query<Campaign>(
    `INSERT INTO campaigns AS c (organization_id, user_id, name, brand_name, objective, status, starts_at, ends_at)
     SELECT $1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::timestamptz, $8::timestamptz
     WHERE ${memberOf('$1', '$2::uuid')}
     RETURNING ${campaignColumns}`,
    [organizationId, campaign.user_id, campaign.name, campaign.brand_name, campaign.objective, createdCampaignStatus, campaign.starts_at, campaign.ends_at],
  );
  return rows[0] ?? null;
}

export async function findCampaign(db: SqlExecutor, organizationId: string, campaignId: string): Promise<Campaign | null> {
  const { rows } = await db.query<Campaign>(
    `SELECT ${campaignColumns} FROM campaigns c
     WHERE c.id = $2
       AND ${campaignOf('$1', 'c')}`,
    [organizationId, campaignId],
  );
  return rows[0] ?? null;
}

/** Like findCampaign, and holds the row until the transaction ends (state changes read-then-write). */
export async function lockCampaign(tx: TransactionExecutor, organizationId: string, campaignId: string): Promise<Campaign | null> {
  const { rows } = await tx.query<Campaign>(
    `SELECT ${campaignColumns} FROM campaigns c
     WHERE c.id = $2
       AND ${campaignOf('$1', 'c')}
     FOR UPDATE`,
    [organizationId, campaignId],
  );
  return rows[0] ?? null;
}

export interface CampaignPage extends PageRequest {
  status?: CampaignStatus;
}

/**
 * One page of the organization's campaigns, oldest first, ties broken by id so that paging never
 * repeats or skips a row. A plain join would read and sort every campaign of the organization for
 * each page; instead each member contributes at most limit rows of the organization's, read in order
 * from campaigns_organization_user_created_idx, or campaigns_organization_user_status_created_idx
 * with a status (starting after
 * the cursor's position when there is one, so a cursor page reads limit rows per member whatever
 * its depth), and only those are merged. An offset is skipped first on the index alone (see
 * campaignListSql). The status condition is in the SQL text only when given: `$2 IS NULL OR
 * status = $2` could not be an index condition.
 */
export async function listCampaigns(db: Postgres, organizationId: string, page: CampaignPage): Promise<CampaignPageJson> {
  const start = page.offset > 0 ? 'offset' : 'cursor';
  const startParams = start === 'offset' ? [page.offset] : [page.cursor?.time ?? null, page.cursor?.id ?? null];
  const fields = await db.rowBytes(
    `SELECT coalesce(json_agg(row_to_json(campaign) ORDER BY p.created_at, p.id), '[]')::text AS data, count(*)::int AS rows,
            ${sortTimeSql('max(p.created_at)')} AS last_time,
            (array_agg(p.id ORDER BY p.created_at, p.id))[count(*)::int]::text AS last_id
     FROM (${campaignListSql(page.status !== undefined, start)}) p
     CROSS JOIN LATERAL (${campaignJsonColumns('p')}) campaign`,
    [organizationId, page.limit, ...(page.status === undefined ? [] : [page.status]), ...startParams],
  );
  const [data, rows, lastTime, lastId] = fields!;
  return {
    data: data!,
    rows: Number(rows!.toString()),
    last: lastTime && lastId ? { time: lastTime.toString(), id: lastId.toString() } : null,
  };
}

/**
 * A page of the list as the JSON text of its campaigns, built by the engine and kept as its UTF-8
 * bytes (Postgres.rowBytes): embedded PGlite would decode each field of each row in JavaScript,
 * and 100 campaigns parsed into objects only to be serialized again cost more than the query.
 * Fields and timestamps as JSON.stringify writes a Campaign.
 */
export interface CampaignPageJson {
  data: Buffer;
  rows: number;
  /** Where the page ends, for next_cursor; null when empty. */
  last: KeysetPosition | null;
}

/**
 * A campaign's JSON fields as a lateral subquery: the planner flattens it, so json_agg of its row
 * writes compact JSON with these keys in this order, without a subquery run per row. The page's
 * cursor is taken from its last row only (max created_at, the last id in the page's order), in
 * the order json_agg already reads, so nothing is sorted twice.
 */
const campaignJsonColumns = (row: string) =>
  `SELECT ${row}.id, ${row}.name, ${row}.brand_name, ${row}.user_id, ${row}.objective, ${row}.status,
     ${jsonTimeSql(`${row}.starts_at`)} AS starts_at, ${jsonTimeSql(`${row}.ends_at`)} AS ends_at,
     ${jsonTimeSql(`${row}.created_at`)} AS created_at, ${jsonTimeSql(`${row}.updated_at`)} AS updated_at`;

/** Each member's campaigns from `start` on, at most $2 of them, in the list's order; merged, the first $2. */
const pageSqlFrom = (statusCondition: string, startCondition: string, from = '') =>
  `SELECT c.* FROM (${membersOf('$1')}) m${from}
   CROSS JOIN LATERAL (
     SELECT * FROM campaigns own
     WHERE own.organization_id = $1 AND own.user_id = m.user_id ${statusCondition} AND ${startCondition}
     ORDER BY own.created_at, own.id
     LIMIT $2::bigint
   ) c
   ORDER BY c.created_at, c.id
   LIMIT $2`;

/**
 * With an offset, the page starts at the (offset + 1)th campaign in the list's order, found on the
 * index alone: the skipped rows are (created_at, id) index entries, read without their table rows
 * (an index-only scan, on the pages the embedded statistics task has vacuumed), instead of whole
 * rows read, sorted and dropped. An organization with one member (the usual case) skips them in
 * index order; with more, each member's first offset + 1 entries are merged by a sort. Each branch
 * runs only when its member count holds (a one-time filter), and the scalar member subquery only
 * in the first. Both steps are one statement, so one snapshot: offset keeps its meaning (rows
 * skipped from the start).
 */
const offsetStartSql = (statusCondition: string, offset: string) => {
  const memberCount = `(SELECT count(*) FROM (${membersOf('$1')}) n)`;
  return `(SELECT own.created_at, own.id FROM campaigns own
     WHERE ${memberCount} = 1 AND own.organization_id = $1 AND own.user_id = (${membersOf('$1')}) ${statusCondition}
     ORDER BY own.created_at, own.id
     OFFSET ${offset} LIMIT 1)
   UNION ALL
   (SELECT k.created_at, k.id FROM (${membersOf('$1')}) m
     CROSS JOIN LATERAL (
       SELECT own.created_at, own.id FROM campaigns own
       WHERE own.organization_id = $1 AND own.user_id = m.user_id ${statusCondition}
       ORDER BY own.created_at, own.id
       LIMIT ${offset}::bigint + 1
     ) k
     WHERE ${memberCount} > 1
     ORDER BY k.created_at, k.id
     OFFSET ${offset} LIMIT 1)`;
};

function listSqlWith(byStatus: boolean, start: 'cursor' | 'offset'): string {
  const status = byStatus ? 'AND own.status = $3::text' : '';
  const next = byStatus ? 4 : 3;
  if (start === 'cursor') {
    const cursor = `($${next}::timestamptz IS NULL OR (own.created_at, own.id) > ($${next}::timestamptz, $${next + 1}::uuid))`;
    return pageSqlFrom(status, cursor);
  }
  return pageSqlFrom(status, '(own.created_at, own.id) >= (start.created_at, start.id)', ` CROSS JOIN (${offsetStartSql(status, `$${next}`)}) start`);
}

const listSql = {
  cursor: { all: listSqlWith(false, 'cursor'), byStatus: listSqlWith(true, 'cursor') },
  offset: { all: listSqlWith(false, 'offset'), byStatus: listSqlWith(true, 'offset') },
};

/**
 * The list's SQL: $1 organization, $2 limit, $3 the status when filtered, then from a cursor its
 * time and id (or nulls: the first page), or the offset.
 */
export function campaignListSql(byStatus: boolean, start: 'cursor' | 'offset' = 'cursor'): string {
  return listSql[start][byStatus ? 'byStatus' : 'all'];
}

/**
 * Applies the given fields; `objective: null` clears it, and so does null for a flight bound. The
 * caller has checked tenancy, the transition and the flight's order.
 */
export async function updateCampaign(tx: SqlExecutor, campaignId: string, patch: CampaignPatch): Promise<Campaign> {
  const { rows } = await tx.query<Campaign>(
    `UPDATE campaigns c SET
       name = COALESCE($2, c.name),
       brand_name = COALESCE($3, c.brand_name),
       objective = CASE WHEN $4::boolean THEN $5::text ELSE c.objective END,
       status = COALESCE($6, c.status),
       starts_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE c.starts_at END,
       ends_at = CASE WHEN $9::boolean THEN $10::timestamptz ELSE c.ends_at END,
       updated_at = now()
     WHERE c.id = $1
     RETURNING ${campaignColumns}`,
    [
      campaignId,
      patch.name ?? null,
      patch.brand_name ?? null,
      patch.objective !== undefined,
      patch.objective ?? null,
      patch.status ?? null,
      patch.starts_at !== undefined,
      patch.starts_at ?? null,
      patch.ends_at !== undefined,
      patch.ends_at ?? null,
    ],
  );
  return rows[0]!;
}

/**
 * Deletes the campaign; line items and creatives go with it (ON DELETE CASCADE). False when not
 * visible. In the same statement it leaves a tombstone (migrations/0017): the campaign's name, brand
 * and objective, and its line items' and creatives' titles, so that reports keep showing what it
 * was billed for (src/reporting/deletedCampaigns.ts); and its line items' budgets and frequency caps
 * (0018), which the billing ceilings of links served before the delete read in a process started
 * after it (src/serving/retiredLineItems.ts). Every part of the statement reads the rows as
 * they were before it, so the titles are read before the cascade removes them.
 */
export async function deleteCampaign(db: SqlExecutor, organizationId: string, campaignId: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH gone AS (
       DELETE FROM campaigns c
       WHERE c.id = $2
         AND ${campaignOf('$1', 'c')}
       RETURNING c.id, c.organization_id, c.user_id, c.name, c.brand_name, c.objective, c.created_at
     ), tombstone AS (
       INSERT INTO deleted_campaigns (id, organization_id, user_id, name, brand_name, objective, created_at)
       SELECT id, organization_id, user_id, name, brand_name, objective, created_at FROM gone
       RETURNING id
     ), line_item_titles AS (
       INSERT INTO deleted_line_items (id, campaign_id, title, budget_daily, budget_currency, budget_lifetime, frequency_cap)
       SELECT li.id, li.campaign_id, li.title, li.budget_daily, li.budget_currency, li.budget_lifetime, li.frequency_cap
       FROM line_items li JOIN tombstone t ON li.campaign_id = t.id
     ), creative_titles AS (
       INSERT INTO deleted_creatives (id, campaign_id, title)
       SELECT cr.id, li.campaign_id, cr.title FROM creatives cr JOIN line_items li ON cr.line_item_id = li.id JOIN tombstone t ON li.campaign_id = t.id
     )
     SELECT id FROM tombstone`,
    [organizationId, campaignId],
  );
  return rows.length > 0;
}

/** A paused copy of the campaign under the same organization and user, with a new name and the same flight; null when the campaign is gone. */
export async function copyCampaign(tx: SqlExecutor, campaignId: string, name: string): Promise<Campaign | null> {
  const { rows } = await tx.query<Campaign>(
    `INSERT INTO campaigns AS c (organization_id, user_id, name, brand_name, objective, status, starts_at, ends_at)
     SELECT source.organization_id, source.user_id, $2, source.brand_name, source.objective, $3, source.starts_at, source.ends_at
     FROM campaigns source WHERE source.id = $1
     RETURNING ${campaignColumns}`,
    [campaignId, name, createdCampaignStatus],
  );
  return rows[0] ?? null;
}

/**
 * The flight sweep: every campaign whose ends_at has passed, and its line items, become completed.
 * Idempotent, so any number of instances may run it at any time; the partial index of 0004 keeps
 * it to the campaigns still to end. The UPDATEs run only when there is something to complete:
 * their statement triggers bump the catalog version, which would rebuild every instance's index.
 * Returns how many campaigns it completed.
 */
export async function completeEndedFlights(db: SqlExecutor): Promise<number> {
  const endedFlight = `ends_at IS NOT NULL AND status <> 'completed' AND ends_at <= now()`;
  const due = await db.query(`SELECT 1 FROM campaigns WHERE ${endedFlight} LIMIT 1`);
  if (due.rows.length === 0) return 0;
  const { rows } = await db.query<{ campaigns: number }>(
    `WITH ended AS (
       UPDATE campaigns SET status = 'completed', updated_at = now() WHERE ${endedFlight} RETURNING id
     ), completed_line_items AS (
       UPDATE line_items li SET status = 'completed', updated_at = now()
       FROM ended WHERE li.campaign_id = ended.id AND li.status <> 'completed'
       RETURNING li.id
     )
     SELECT (SELECT count(*) FROM ended)::int AS campaigns`,
  );
  return rows[0]!.campaigns;
}
