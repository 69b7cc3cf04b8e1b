import type { SqlExecutor } from '../store/postgres.js';
import { membersOf } from '../management/campaignTenancy.js';
import { jsonTimeSql } from '../store/timestampText.js';
import { sortTimeSql, type KeysetPosition } from '../http/keysetPaging.js';
import { notifiedCache } from '../store/notifiedCache.js';

/** A campaign as reports show it. */
export interface ReportCampaign {
  id: string;
  name: string;
  status: string;
  brand_name: string;
  objective: string | null;
  /** When it was deleted (ISO 8601), null while it exists; a deleted campaign reports as completed. */
  deleted_at: string | null;
  /** created_at to the microsecond: the campaign's keyset position with its id. */
  sort_time: string;
}

/**
 * Campaign ids per ClickHouse query when a report spans a whole organization. An array parameter of
 * thousands of UUIDs is fine, but on a server it travels in the URL (about 44 bytes an id), so
 * very large organizations are read in several queries rather than hitting the URL limit.
 */
export const CAMPAIGN_IDS_PER_QUERY = 5000;

/** Every committed write to campaigns, deleted_campaigns or memberships notifies this channel (migrations/0020). */
const CAMPAIGN_PAGES_CHANNEL = 'campaign_pages';

/** Reads remembered per store and query, at most (a bound, not a tuning knob: a page of 1,000 campaigns is about 40 kB of text). */
const MAX_REMEMBERED_READS = 1000;

const rememberedReads = new WeakMap<SqlExecutor, Map<string, (key: string) => Promise<unknown[] | undefined>>>();

/**
 * The rows of `sql` with `params` (JSON values: they are the key), remembered until any write to the
 * tables a page of report campaigns reads (notifiedCache on campaign_pages, migrations/0020): on
 * embedded PGlite a repeated report (a dashboard reloaded, the same page again) asks PGlite nothing
 * for its page and its deleted campaigns, whose two queries cost the thread that answers it 1.7 ms of
 * a 1,000-row repeat's 4.3, and 3-10 ms when other processes share the cores (bench/README "Report:
 * session 43"). On a Postgres server the query every time. The rows are shared: never changed.
 */
export async function campaignPageRows<Row>(db: SqlExecutor, sql: string, params: unknown[]): Promise<Row[]> {
  let reads = rememberedReads.get(db);
  if (reads === undefined) rememberedReads.set(db, (reads = new Map()));
  let read = reads.get(sql);
  if (read === undefined) {
    read = notifiedCache(db, CAMPAIGN_PAGES_CHANNEL, MAX_REMEMBERED_READS, async (key) => (await db.query(sql, JSON.parse(key) as unknown[])).rows);
    reads.set(sql, read);
  }
  return (await read(JSON.stringify(params))) as Row[];
}

/** A campaign of a page before its attributes: its id and whether the report shows it from its tombstone. */
export interface PagedCampaign {
  id: string;
  gone: boolean;
}

/** Where organizationCampaignPage finds the attributes of a page's campaigns (campaignAttributes.ts); undefined when some are gone. */
export interface RememberedAttributes {
  of(db: SqlExecutor, page: PagedCampaign[]): Promise<Array<Omit<ReportCampaign, 'sort_time'>> | undefined>;
}

/** A page of campaigns and the keyset position of its last one (none when it is empty). */
export interface ReadCampaignPage {
  campaigns: Array<Omit<ReportCampaign, 'sort_time'>>;
  last?: KeysetPosition;
}

export interface CampaignPage {
  /** null: every campaign from `offset` on. */
  limit: number | null;
  offset: number;
  /** Only campaigns after this position (keyset paging); the offset then counts from there. */
  after?: KeysetPosition;
}

/**
 * The organization's campaigns (campaignTenancy.ts), optionally narrowed to `campaignIds`
 * (ids of other organizations simply match nothing), in creation order with the id breaking ties:
 * a total order, and new campaigns land at the end, so offset paging neither repeats nor skips.
 * Deleted campaigns named in `deletedShown` (deletedCampaigns.ts: those with events in the
 * report's window) take their place in that order from their tombstones, as completed.
 * Each member contributes at most offset + limit rows, read in order from
 * campaigns_organization_user_created_idx, so a page does not sort every campaign of a large organization.
 * With `after`, each member's rows start at that position in the index: a long export continues
 * batch after batch from its last campaign instead of re-reading every earlier one, and a campaign
 * deleted meanwhile moves nothing. LIMIT NULL is LIMIT ALL (and NULL + offset is NULL).
 */
export async function organizationCampaigns(
  db: SqlExecutor,
  organizationId: string,
  campaignIds: string[] | null,
  page: CampaignPage,
  deletedShown: string[] = [],
): Promise<ReportCampaign[]> {
  // The page as one JSON text built by the engine: decoding seven text fields a row in JavaScript
  // cost embedded PGlite about 4-6 ms more for a page of 1,000 campaigns than this field and JSON.parse.
  const { rows } = await db.query<{ page: string }>(
    `SELECT coalesce(json_agg(json_build_object(
              'id', c.id, 'name', c.name, 'status', c.status, 'brand_name', c.brand_name, 'objective', c.objective,
              'deleted_at', ${jsonTimeSql('c.deleted_at')}, 'sort_time', ${sortTimeSql('c.created_at')}) ORDER BY c.created_at, c.id), '[]')::text AS page
       FROM (${pageSql(
         'own.name, own.status, own.brand_name, own.objective, NULL::timestamptz AS deleted_at',
         "gone.name, 'completed', gone.brand_name, gone.objective, gone.deleted_at",
       )}) c`,
    pageParams(organizationId, campaignIds, page, deletedShown),
  );
  return JSON.parse(rows[0]!.page) as ReportCampaign[];
}

/**
 * organizationCampaigns, with the campaigns' attributes from `attributes` (campaignAttributes.ts)
 * where it remembers them: Postgres reads the page itself (which campaigns, in which order; on
 * embedded PGlite remembered until a write to its tables, campaignPageRows) and only the attributes
 * it does not remember. The page comes back as three texts (the ids, the tombstone
 * flags, the last campaign's position): a JSON object a row, with its position formatted, cost
 * embedded PGlite about 4.5 ms for 1,000 campaigns, these 1.4 (bench/README "Report: session 36").
 * When a campaign of the page is gone by the second read (a delete in between), the page is read
 * again as one query.
 */
export async function organizationCampaignPage(
  db: SqlExecutor,
  attributes: RememberedAttributes,
  organizationId: string,
  campaignIds: string[] | null,
  page: CampaignPage,
  deletedShown: string[] = [],
): Promise<ReadCampaignPage> {
  // Remembered until a write to its tables (campaignPageRows): a repeat reads no Postgres here.
  const rows = await campaignPageRows<{ ids: string | null; gone: string | null; last_time: string | null }>(
    db,
    `SELECT string_agg(c.id::text, ',' ORDER BY c.created_at, c.id) AS ids,
            string_agg(CASE WHEN c.gone THEN '1' ELSE '0' END, '' ORDER BY c.created_at, c.id) AS gone,
            ${sortTimeSql('max(c.created_at)')} AS last_time
       FROM (${pageSql('false AS gone', 'true')}) c`,
    pageParams(organizationId, campaignIds, page, deletedShown),
  );
  const { ids, gone, last_time: lastTime } = rows[0]!;
  if (ids === null || gone === null || lastTime === null) return { campaigns: [] };
  const paged = ids.split(',').map((id, index) => ({ id, gone: gone[index] === '1' }));
  const campaigns = await attributes.of(db, paged);
  if (campaigns === undefined) {
    const read = await organizationCampaigns(db, organizationId, campaignIds, page, deletedShown);
    const last = read.at(-1);
    return { campaigns: read, ...(last ? { last: { time: last.sort_time, id: last.id } } : {}) };
  }
  return { campaigns, last: { time: lastTime, id: paged.at(-1)!.id } };
}

function pageParams(organizationId: string, campaignIds: string[] | null, page: CampaignPage, deletedShown: string[]): unknown[] {
  return [organizationId, campaignIds, page.limit, page.offset, page.after?.time ?? null, page.after?.id ?? null, deletedShown];
}

/**
 * The page's rows (id, created_at and the given columns of campaigns `own` and of tombstones `gone`),
 * with the parameters of pageParams. The columns are fixed SQL of this file, never input.
 */
function pageSql(ownColumns: string, goneColumns: string): string {
  return `
        SELECT c.*
          FROM (${membersOf('$1')}) m
         CROSS JOIN LATERAL (
           (SELECT own.id, own.created_at, ${ownColumns}
              FROM campaigns own
             WHERE own.organization_id = $1 AND own.user_id = m.user_id AND ($2::uuid[] IS NULL OR own.id = ANY ($2::uuid[]))
               AND ($5::timestamptz IS NULL OR (own.created_at, own.id) > ($5::timestamptz, $6::uuid))
             ORDER BY own.created_at, own.id
             LIMIT $3::bigint + $4::bigint)
           UNION ALL
           (SELECT gone.id, gone.created_at, ${goneColumns}
              FROM deleted_campaigns gone
             WHERE gone.id = ANY ($7::uuid[]) AND gone.organization_id = $1 AND gone.user_id = m.user_id
               AND ($2::uuid[] IS NULL OR gone.id = ANY ($2::uuid[]))
               AND ($5::timestamptz IS NULL OR (gone.created_at, gone.id) > ($5::timestamptz, $6::uuid))
             ORDER BY gone.created_at, gone.id
             LIMIT $3::bigint + $4::bigint)
         ) c
         ORDER BY c.created_at, c.id
         LIMIT $3 OFFSET $4`;
}
