import type { SqlExecutor, Postgres, TransactionExecutor } from '../store/postgres.js';

export type Certification = 'uncertified' | 'certified' | 'revoked';

export interface CertificationHistoryEntry {
  from: Certification | null;
  to: Certification;
  actor: string;
  reason: string | null;
  at: string;
}

export interface Placement {
  id: string;
  publisher_id: string;
  name: string | null;
  certification: Certification;
  created_at: string;
  history: CertificationHistoryEntry[];
}

export class PlacementExistsError extends Error {}

/**
 * Placements start uncertified: only CPC and CPA demand until an operator certifies them. Placement
 * ids are global, not per publisher: line item targeting, event imports and the admin routes name a
 * placement by its id alone (docs/operating.md). So an id another publisher has is refused too, and
 * the operator (the only one who creates placements, and who sees every publisher's) is told so
 * without naming that publisher; a publisher never learns of another's placement (its serve, check
 * and review of one answer 404 as for an unknown id). Inside the caller's transaction, with the
 * placement's first history entry.
 */
export async function createPlacement(tx: TransactionExecutor, publisherId: string, id: string, name: string | undefined): Promise<Placement> {
  const { rows } = await tx.query(
    `INSERT INTO placements (id, publisher_id, name) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [id, publisherId, name ?? null],
  );
  if (rows.length === 0) {
    // A statement of its own: it sees the conflicting row even when another transaction committed it
    // after the insert began.
    const existing = await tx.query<{ publisher_id: string }>('SELECT publisher_id FROM placements WHERE id = $1', [id]);
    if ((existing.rows[0]?.publisher_id ?? publisherId) === publisherId) throw new PlacementExistsError(`placement ${id} already exists for this publisher`);
    throw new PlacementExistsError(
      `placement id ${id} is used by another publisher: placement ids are global (targeting and imports name a placement by its id alone); choose another, such as one prefixed with this publisher's name`,
    );
  }
  await recordHistory(tx, id, null, 'uncertified', 'operator', 'placement created');
  return (await findPlacement(tx, id))!;
}

export async function findPlacement(db: SqlExecutor, id: string): Promise<Placement | undefined> {
  const { rows } = await db.query<Omit<Placement, 'history'>>(
    'SELECT id, publisher_id, name, certification, created_at FROM placements WHERE id = $1',
    [id],
  );
  const placement = rows[0];
  if (!placement) return undefined;
  return { ...placement, history: await historyOf(db, id) };
}

async function historyOf(db: SqlExecutor, placementId: string): Promise<CertificationHistoryEntry[]> {
  const { rows } = await db.query<CertificationHistoryEntry>(
    `SELECT from_state AS "from", to_state AS "to", actor, reason, created_at AS "at"
     FROM placement_certification_history WHERE placement_id = $1 ORDER BY id`,
    [placementId],
  );
  return rows;
}

/**
 * Moves a placement to `to`, with a history entry, when it is in one of the `from` states.
 * Returns the placement, or undefined when it does not exist. A placement already in `to` is left
 * as it is (no second history entry), so repeated calls and concurrent instances are harmless.
 */
export async function changeCertification(
  db: Postgres,
  id: string,
  to: Certification,
  actor: string,
  reason: string | null,
  from: Certification[] = ['uncertified', 'certified', 'revoked'],
): Promise<Placement | undefined> {
  const found = await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ certification: Certification }>(
      'SELECT certification FROM placements WHERE id = $1 FOR UPDATE',
      [id],
    );
    const current = rows[0];
    if (!current) return false;
    if (current.certification !== to && from.includes(current.certification)) {
      await tx.query('UPDATE placements SET certification = $2, updated_at = now() WHERE id = $1', [id, to]);
      await recordHistory(tx, id, current.certification, to, actor, reason);
    }
    return true;
  });
  return found ? findPlacement(db, id) : undefined;
}

async function recordHistory(
  tx: SqlExecutor,
  placementId: string,
  from: Certification | null,
  to: Certification,
  actor: string,
  reason: string | null,
): Promise<void> {
  await tx.query(
    `INSERT INTO placement_certification_history (placement_id, from_state, to_state, actor, reason)
     VALUES ($1, $2, $3, $4, $5)`,
    [placementId, from, to, actor, reason],
  );
}
