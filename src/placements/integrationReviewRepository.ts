import type { SqlExecutor } from '../store/postgres.js';
import type { ReviewStatus } from './integrationReviewSchemas.js';

export interface IntegrationReview {
  id: string;
  publisher_id: string;
  /** The publisher's name, so that a queue of reviews reads as whose they are. */
  publisher_name: string;
  placement_ids: string[];
  status: ReviewStatus;
  note: string | null;
  decided_by: string | null;
  decision_reason: string | null;
  decided_at: string | null;
  created_at: string;
}

const REVIEW_COLUMNS = `r.id, r.publisher_id, (SELECT p.name FROM publishers p WHERE p.id = r.publisher_id) AS publisher_name, r.status, r.note, r.decided_by, r.decision_reason, r.decided_at, r.created_at,
  coalesce((SELECT array_agg(rp.placement_id ORDER BY rp.placement_id) FROM integration_review_placements rp
            WHERE rp.review_id = r.id), '{}') AS placement_ids`;

export async function insertReview(tx: SqlExecutor, publisherId: string, placementIds: string[], note: string | undefined): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    'INSERT INTO integration_reviews (publisher_id, note) VALUES ($1, $2) RETURNING id',
    [publisherId, note ?? null],
  );
  const id = rows[0]!.id;
  await tx.query(
    'INSERT INTO integration_review_placements (review_id, placement_id) SELECT $1, unnest($2::text[])',
    [id, placementIds],
  );
  return id;
}

export async function findReview(db: SqlExecutor, id: string): Promise<IntegrationReview | undefined> {
  const { rows } = await db.query<IntegrationReview>(`SELECT ${REVIEW_COLUMNS} FROM integration_reviews r WHERE r.id = $1`, [id]);
  return rows[0];
}

export interface ReviewFilter {
  publisherId?: string;
  status?: ReviewStatus;
  limit: number;
  offset: number;
  newestFirst: boolean;
}

export async function listReviews(db: SqlExecutor, filter: ReviewFilter): Promise<IntegrationReview[]> {
  const direction = filter.newestFirst ? 'DESC' : 'ASC';
  const { rows } = await db.query<IntegrationReview>(
    `SELECT ${REVIEW_COLUMNS} FROM integration_reviews r
     WHERE ($1::uuid IS NULL OR r.publisher_id = $1) AND ($2::text IS NULL OR r.status = $2)
     ORDER BY r.created_at ${direction}, r.id ${direction}
     LIMIT $3 OFFSET $4`,
    [filter.publisherId ?? null, filter.status ?? null, filter.limit, filter.offset],
  );
  return rows;
}

/** Placements among `placementIds` that already wait in a pending review. */
export async function placementsInPendingReviews(tx: SqlExecutor, placementIds: string[]): Promise<string[]> {
  const { rows } = await tx.query<{ placement_id: string }>(
    `SELECT DISTINCT rp.placement_id FROM integration_review_placements rp
     JOIN integration_reviews r ON r.id = rp.review_id
     WHERE r.status = 'pending' AND rp.placement_id = ANY($1::text[])
     ORDER BY rp.placement_id`,
    [placementIds],
  );
  return rows.map((row) => row.placement_id);
}

/** Records the decision on a pending review; false when it is no longer pending (someone decided first). */
export async function decideReview(
  db: SqlExecutor,
  id: string,
  status: Exclude<ReviewStatus, 'pending'>,
  decidedBy: string,
  reason: string | null,
): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE integration_reviews SET status = $2, decided_by = $3, decision_reason = $4, decided_at = now()
     WHERE id = $1 AND status = 'pending' RETURNING id`,
    [id, status, decidedBy, reason],
  );
  return rows.length > 0;
}
