import type { SqlExecutor } from '../store/postgres.js';
import type { Certification, CertificationHistoryEntry, Placement } from './placementRepository.js';
import { eligiblePriceModels, type PriceModel } from '../money/priceModels.js';

export interface PublisherPlacement extends Placement {
  /** What demand the placement gets now: CPC and CPA always; tCPM once certified. */
  eligible_price_models: readonly PriceModel[];
}

/** The publisher's placements, oldest first, each with its whole certification history (two queries). */
export async function listPublisherPlacements(db: SqlExecutor, publisherId: string): Promise<PublisherPlacement[]> {
  const { rows: placements } = await db.query<Omit<Placement, 'history'>>(
    `SELECT id, publisher_id, name, certification, created_at FROM placements
     WHERE publisher_id = $1 ORDER BY created_at, id`,
    [publisherId],
  );
  const { rows: history } = await db.query<CertificationHistoryEntry & { placement_id: string }>(
    `SELECT h.placement_id, h.from_state AS "from", h.to_state AS "to", h.actor, h.reason, h.created_at AS "at"
     FROM placement_certification_history h JOIN placements p ON p.id = h.placement_id
     WHERE p.publisher_id = $1 ORDER BY h.id`,
    [publisherId],
  );
  const historyByPlacement = new Map<string, CertificationHistoryEntry[]>();
  for (const { placement_id, ...entry } of history) {
    const list = historyByPlacement.get(placement_id);
    if (list) list.push(entry);
    else historyByPlacement.set(placement_id, [entry]);
  }
  return placements.map((placement) => ({
    ...placement,
    eligible_price_models: eligiblePriceModels(placement.certification),
    history: historyByPlacement.get(placement.id) ?? [],
  }));
}

/** Locks the placements among `ids` that exist, so concurrent review requests for them queue up. */
export async function lockPlacements(
  tx: SqlExecutor,
  ids: string[],
): Promise<Array<{ id: string; publisher_id: string; certification: Certification }>> {
  const { rows } = await tx.query<{ id: string; publisher_id: string; certification: Certification }>(
    'SELECT id, publisher_id, certification FROM placements WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
    [ids],
  );
  return rows;
}
