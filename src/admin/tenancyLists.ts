import type { SqlExecutor } from '../store/postgres.js';
import { pageParameters, sortTimeSql, type KeyedRow, type PageRequest } from '../http/keysetPaging.js';
import type { Permission } from '../http/apiKeyAuth.js';
import type { Organization } from './tenancyRepository.js';

// The operators' lists, oldest first by (created_at, id), keyset-paged (src/http/keysetPaging.ts):
// each reads its page from a (parent, created_at, id) index of migration 0006.

export async function listOrganizations(db: SqlExecutor, page: PageRequest): Promise<KeyedRow<Organization>[]> {
  const { rows } = await db.query<KeyedRow<Organization>>(
    `SELECT o.id, o.name, o.created_at, ${sortTimeSql('o.created_at')} AS sort_time
     FROM organizations o
     WHERE ($1::timestamptz IS NULL OR (o.created_at, o.id) > ($1::timestamptz, $2::uuid))
     ORDER BY o.created_at, o.id
     LIMIT $3 OFFSET $4`,
    pageParameters(page),
  );
  return rows;
}

export interface Member {
  id: string;
  email: string;
  organization_id: string;
  /** When the user joined this organization. */
  created_at: string;
}

/** Members in the order they joined the organization; `id` is the user's id. */
export async function listMembers(db: SqlExecutor, organizationId: string, page: PageRequest): Promise<KeyedRow<Member>[]> {
  const { rows } = await db.query<KeyedRow<Member>>(
    `SELECT u.id, u.email, m.organization_id, m.created_at, ${sortTimeSql('m.created_at')} AS sort_time
     FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.organization_id = $1
       AND ($2::timestamptz IS NULL OR (m.created_at, m.user_id) > ($2::timestamptz, $3::uuid))
     ORDER BY m.created_at, m.user_id
     LIMIT $4 OFFSET $5`,
    [organizationId, ...pageParameters(page)],
  );
  return rows;
}

/** An API key as listed: never the key, never its hash (the key is shown once, when made). */
export interface ApiKeySummary {
  id: string;
  organization_id: string;
  permissions: Permission[];
  created_at: string;
  revoked_at: string | null;
}

export async function listApiKeys(db: SqlExecutor, organizationId: string, page: PageRequest): Promise<KeyedRow<ApiKeySummary>[]> {
  const { rows } = await db.query<KeyedRow<ApiKeySummary>>(
    `SELECT k.id, k.organization_id, k.permissions, k.created_at, k.revoked_at, ${sortTimeSql('k.created_at')} AS sort_time
     FROM api_keys k
     WHERE k.organization_id = $1
       AND ($2::timestamptz IS NULL OR (k.created_at, k.id) > ($2::timestamptz, $3::uuid))
     ORDER BY k.created_at, k.id
     LIMIT $4 OFFSET $5`,
    [organizationId, ...pageParameters(page)],
  );
  return rows;
}
