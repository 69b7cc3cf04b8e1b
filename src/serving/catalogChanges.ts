import type { Postgres } from '../store/postgres.js';
import type { CatalogKeys } from './catalogQueries.js';

/** One row of catalog_changes (migrations/0008): something that can be served changed. */
interface CatalogChangeRow {
  id: string;
  xid: string;
  kind: 'campaign' | 'line_item' | 'placement' | 'token';
  entity_id: string;
}

/**
 * Follows catalog_changes without missing a late commit. Each read also takes the snapshot's xmin
 * (the horizon): every transaction below it has ended, so its changes are in that read or never
 * will be. The next read asks for every change of a transaction at or above the previous horizon,
 * which includes any transaction still running then, however its row ids or clocks compare; rows
 * already handed out are skipped by id. No clock is involved, so skew between instances and the
 * database does not matter.
 */
export class CatalogChangeFeed {
  /** Ids handed out whose transaction is at or above the horizon (they can be read again). */
  private handedOut = new Map<string, bigint>();

  constructor(
    private readonly db: Postgres,
    /** The horizon of the snapshot the index was built from (loadCatalog). */
    private horizon: string,
  ) {}

  /** The rows to reload since the last call, or undefined when nothing changed. */
  async next(): Promise<{ keys: CatalogKeys; changes: number; horizon: string; commit(): void } | undefined> {
    const { rows } = await this.db.query<{ horizon: string } & Partial<CatalogChangeRow>>(
      `WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon)
       SELECT snapshot.horizon::text AS horizon, c.id::text AS id, c.xid::text AS xid, c.kind, c.entity_id
       FROM snapshot LEFT JOIN catalog_changes c ON c.xid >= $1::xid8
       ORDER BY c.id`,
      [this.horizon],
    );
    const horizon = rows[0]!.horizon;
    const fresh = rows.filter((row): row is typeof row & CatalogChangeRow => row.id != null && !this.handedOut.has(row.id));
    const advance = () => {
      for (const row of fresh) this.handedOut.set(row.id, BigInt(row.xid));
      const below = BigInt(horizon);
      for (const [id, xid] of this.handedOut) if (xid < below) this.handedOut.delete(id);
      this.horizon = horizon;
    };
    if (fresh.length === 0) {
      advance();
      return undefined;
    }
    const keys = { tokenHashes: new Set<string>(), placementIds: new Set<string>(), lineItemIds: new Set<string>(), campaignIds: new Set<string>() };
    const byKind = { token: keys.tokenHashes, placement: keys.placementIds, line_item: keys.lineItemIds, campaign: keys.campaignIds };
    for (const row of fresh) byKind[row.kind]?.add(row.entity_id);
    return {
      keys: {
        tokenHashes: [...keys.tokenHashes],
        placementIds: [...keys.placementIds],
        lineItemIds: [...keys.lineItemIds],
        campaignIds: [...keys.campaignIds],
      },
      changes: fresh.length,
      horizon,
      // Called once the index holds the changes: a failed reload leaves them to the next call.
      commit: advance,
    };
  }
}

/**
 * Deletes changes older than the retention. An instance whose last successful read is older than
 * that may have missed some, so it rebuilds its index instead (see AdIndexRefresher).
 */
export async function pruneCatalogChanges(db: Postgres, retentionMs: number): Promise<number> {
  const { rows } = await db.query<{ count: number }>(
    `WITH gone AS (DELETE FROM catalog_changes WHERE changed_at < clock_timestamp() - $1 * interval '1 millisecond' RETURNING 1)
     SELECT count(*)::int AS count FROM gone`,
    [retentionMs],
  );
  return rows[0]!.count;
}
