import type { Postgres } from '../store/postgres.js';
import type { CatalogKeys } from './catalogQueries.js';

/** One row of catalog_changes (migrations/0008): something that can be served changed. */
interface CatalogChangeRow {
  id: string;
  xid: string;
  kind: 'campaign' | 'line_item' | 'placement' | 'token';
  entity_id: string;
}

/** Notified at the commit of every transaction that wrote catalog_changes (migrations/0010). */
export const CATALOG_CHANGES_CHANNEL = 'catalog_changes';

/** What one read of the feed found. */
export type CatalogChangeRead =
  | { kind: 'none' }
  /** Changes this feed needed were pruned (it was not read for a whole prune interval): rebuild. */
  | { kind: 'pruned' }
  | { kind: 'changes'; keys: CatalogKeys; changes: number; horizon: string; commit(): void };

/**
 * Follows catalog_changes without missing a late commit. Each read also takes the snapshot's xmin
 * (the horizon): every transaction below it has ended, so its changes are in that read or never
 * will be. The next read asks for every change of a transaction at or above the previous horizon,
 * which includes any transaction still running then, however long it runs and however its row ids
 * or clocks compare; rows already handed out are skipped by id. No clock is involved, so skew
 * between instances and the database does not matter.
 */
export class CatalogChangeFeed {
  /** Ids handed out whose transaction is at or above the horizon (they can be read again). */
  private handedOut = new Map<string, bigint>();

  constructor(
    private readonly db: Postgres,
    /** The horizon of the snapshot the index was built from (loadCatalog). */
    private horizon: string,
  ) {}

  /** Every change of a transaction below this is in the index: the log is read again from here after a restart. */
  get position(): string {
    return this.horizon;
  }

  /** The rows to reload since the last committed read. */
  async next(): Promise<CatalogChangeRead> {
    const { rows } = await this.db.query<{ horizon: string; pruned_below: string } & Partial<CatalogChangeRow>>(
      `WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon)
       SELECT snapshot.horizon::text AS horizon, p.below::text AS pruned_below,
              c.id::text AS id, c.xid::text AS xid, c.kind, c.entity_id
       FROM snapshot CROSS JOIN catalog_changes_pruned p LEFT JOIN catalog_changes c ON c.xid >= $1::xid8
       ORDER BY c.id`,
      [this.horizon],
    );
    const { horizon, pruned_below } = rows[0]!;
    if (BigInt(pruned_below) > BigInt(this.horizon)) return { kind: 'pruned' };
    const fresh = rows.filter((row): row is typeof row & CatalogChangeRow => row.id != null && !this.handedOut.has(row.id));
    const advance = () => {
      for (const row of fresh) this.handedOut.set(row.id, BigInt(row.xid));
      const below = BigInt(horizon);
      for (const [id, xid] of this.handedOut) if (xid < below) this.handedOut.delete(id);
      this.horizon = horizon;
    };
    if (fresh.length === 0) {
      advance();
      return { kind: 'none' };
    }
    const keys = { tokenHashes: new Set<string>(), placementIds: new Set<string>(), lineItemIds: new Set<string>(), campaignIds: new Set<string>() };
    const byKind = { token: keys.tokenHashes, placement: keys.placementIds, line_item: keys.lineItemIds, campaign: keys.campaignIds };
    for (const row of fresh) byKind[row.kind]?.add(row.entity_id);
    return {
      kind: 'changes',
      keys: {
        tokenHashes: [...keys.tokenHashes],
        placementIds: [...keys.placementIds],
        lineItemIds: [...keys.lineItemIds],
        campaignIds: [...keys.campaignIds],
      },
      changes: fresh.length,
      horizon,
      // Called once the index holds the changes: a failed reload leaves them to the next read.
      commit: advance,
    };
  }
}

/**
 * Deletes the changes of every transaction below `below`, a horizon this instance read one prune
 * interval ago: those transactions had ended by then, so every poller that has read since holds
 * them. The mark tells a poller that has not (its horizon is lower) to rebuild instead.
 */
export async function pruneCatalogChanges(db: Postgres, below: string): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ count: number }>(
      `WITH gone AS (DELETE FROM catalog_changes WHERE xid < $1::xid8 RETURNING 1) SELECT count(*)::int AS count FROM gone`,
      [below],
    );
    await tx.query('UPDATE catalog_changes_pruned SET below = greatest(below, $1::xid8)', [below]);
    return rows[0]!.count;
  });
}

/** The current horizon (snapshot xmin): every transaction below it has ended. */
export async function readHorizon(db: Postgres): Promise<string> {
  const { rows } = await db.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
  return rows[0]!.horizon;
}
