import type { Postgres } from '../store/postgres.js';
import type { CeilingColumns } from './adIndex.js';

/** A line item that left the serving index, with its ceilings' columns and when it left (at the latest). */
export type RetiredLineItemRow = CeilingColumns & { left_at: Date };

/**
 * Line items that left the serving index since `since` (paused, completed, their campaign paused,
 * completed or past its flight's end, or deleted with it), for the billing ceilings of a process
 * that never had them in its index: their links, signed before they left, stay valid for
 * TRACKING_LINK_TTL_SECONDS. A running process keeps the line items that leave its index itself
 * (indexedDestinations.ts); a new one reads these once at start.
 *
 * `left_at` is the last write that could have taken the line item out (its own, its campaign's,
 * its flight's end, the delete): a later edit of a paused line item only keeps it a little longer.
 * Each part reads one of migration 0018's indexes (or 0004's for flights the sweep has not
 * completed yet), and the line items by their id or campaign through arrays (`= ANY(ARRAY(...))`):
 * joined to the parts instead, embedded PGlite (no statistics at start) scanned all 100,000 line
 * items three times (120-180 ms). So the start pays for what recently left, not for the catalog:
 * 1-25 ms with none, 28-40 ms for 2,750 (bench/README.md, "Billing ceilings after a restart"). Drafts never
 * served; a line item servable by its status is in the catalog the index was built from, and one
 * the build leaves out (no creative left, say) is kept from there (IndexBuildDeps.unservable).
 */
const RETIRED_SQL = `SELECT li.id, li.budget_daily::text AS budget_daily, li.budget_currency, li.budget_lifetime::text AS budget_lifetime, li.frequency_cap,
         greatest(li.updated_at, c.updated_at, CASE WHEN c.ends_at <= now() THEN c.ends_at END) AS left_at
  FROM line_items li JOIN campaigns c ON c.id = li.campaign_id
  WHERE li.status <> 'draft' AND (
    li.id = ANY(ARRAY(SELECT id FROM line_items WHERE status IN ('paused', 'completed') AND updated_at > $1::timestamptz))
    OR li.campaign_id = ANY(ARRAY(
      SELECT id FROM campaigns WHERE status IN ('paused', 'completed') AND updated_at > $1::timestamptz
      UNION ALL
      SELECT id FROM campaigns WHERE ends_at IS NOT NULL AND status <> 'completed' AND ends_at > $1::timestamptz AND ends_at <= now())))
  UNION ALL
  SELECT d.id, d.budget_daily::text, d.budget_currency, d.budget_lifetime::text, d.frequency_cap, gone.deleted_at
  FROM deleted_campaigns gone JOIN deleted_line_items d ON d.campaign_id = gone.id
  WHERE gone.deleted_at > $1::timestamptz AND d.budget_daily IS NOT NULL`;

export async function loadRetiredLineItems(db: Postgres, since: Date): Promise<RetiredLineItemRow[]> {
  const { rows } = await db.query<RetiredLineItemRow>(RETIRED_SQL, [since.toISOString()]);
  return rows;
}
