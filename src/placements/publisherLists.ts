import type { SqlExecutor } from '../store/postgres.js';
import { pageParameters, sortTimeSql, type KeyedRow, type PageRequest } from '../http/keysetPaging.js';
import type { Certification } from './placementRepository.js';

// The operators' lists of publishers, their tokens and placements, oldest first by (created_at, id),
// keyset-paged (src/http/keysetPaging.ts) on the (parent, created_at, id) indexes of migration 0006.

export interface PublisherSummary {
  id: string;
  name: string;
  created_at: string;
}

export async function listPublishers(db: SqlExecutor, page: PageRequest): Promise<KeyedRow<PublisherSummary>[]> {
  const { rows } = await db.query<KeyedRow<PublisherSummary>>(
    `SELECT p.id, p.name, p.created_at, ${sortTimeSql('p.created_at')} AS sort_time
     FROM publishers p
     WHERE ($1::timestamptz IS NULL OR (p.created_at, p.id) > ($1::timestamptz, $2::uuid))
     ORDER BY p.created_at, p.id
     LIMIT $3 OFFSET $4`,
    pageParameters(page),
  );
  return rows;
}

/** A publisher token as listed: never the token, never its hash. */
export interface PublisherTokenSummary {
  id: string;
  publisher_id: string;
  created_at: string;
  revoked_at: string | null;
}

export async function listPublisherTokens(db: SqlExecutor, publisherId: string, page: PageRequest): Promise<KeyedRow<PublisherTokenSummary>[]> {
  const { rows } = await db.query<KeyedRow<PublisherTokenSummary>>(
    `SELECT t.id, t.publisher_id, t.created_at, t.revoked_at, ${sortTimeSql('t.created_at')} AS sort_time
     FROM publisher_tokens t
     WHERE t.publisher_id = $1
       AND ($2::timestamptz IS NULL OR (t.created_at, t.id) > ($2::timestamptz, $3::uuid))
     ORDER BY t.created_at, t.id
     LIMIT $4 OFFSET $5`,
    [publisherId, ...pageParameters(page)],
  );
  return rows;
}

/** A placement as listed: its state without the history (GET /v1/admin/placements/{id} has it). */
export interface PlacementSummary {
  id: string;
  publisher_id: string;
  name: string | null;
  certification: Certification;
  created_at: string;
  updated_at: string;
}

export async function listPublisherPlacements(db: SqlExecutor, publisherId: string, page: PageRequest): Promise<KeyedRow<PlacementSummary>[]> {
  const { rows } = await db.query<KeyedRow<PlacementSummary>>(
    `SELECT p.id, p.publisher_id, p.name, p.certification, p.created_at, p.updated_at, ${sortTimeSql('p.created_at')} AS sort_time
     FROM placements p
     WHERE p.publisher_id = $1
       AND ($2::timestamptz IS NULL OR (p.created_at, p.id) > ($2::timestamptz, $3::text))
     ORDER BY p.created_at, p.id
     LIMIT $4 OFFSET $5`,
    [publisherId, ...pageParameters(page)],
  );
  return rows;
}
