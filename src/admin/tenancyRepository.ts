import type { SqlExecutor } from '../store/postgres.js';
import type { Permission } from '../http/apiKeyAuth.js';
import { hashSecret, newSecret } from '../http/secretHash.js';

export interface Organization {
  id: string;
  name: string;
  created_at: string;
}

export async function createOrganization(db: SqlExecutor, name: string): Promise<Organization> {
  const { rows } = await db.query<Organization>(
    'INSERT INTO organizations (name) VALUES ($1) RETURNING id, name, created_at',
    [name],
  );
  return rows[0]!;
}

export async function findOrganization(db: SqlExecutor, organizationId: string): Promise<Organization | undefined> {
  const { rows } = await db.query<Organization>('SELECT id, name, created_at FROM organizations WHERE id = $1', [organizationId]);
  return rows[0];
}

export async function organizationExists(db: SqlExecutor, organizationId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM organizations WHERE id = $1', [organizationId]);
  return rows.length > 0;
}

/** Creates the user, or finds the one with that email, and makes it a member of the organization. */
export async function addMember(db: SqlExecutor, organizationId: string, email: string) {
  const { rows } = await db.query<{ id: string; email: string }>(
    `INSERT INTO users (email) VALUES ($1)
     ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
     RETURNING id, email`,
    [email],
  );
  const user = rows[0]!;
  await db.query(
    'INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [organizationId, user.id],
  );
  return { id: user.id, email: user.email, organization_id: organizationId };
}

export async function createApiKey(db: SqlExecutor, organizationId: string, permissions: Permission[]) {
  const key = newSecret('ak_');
  const { rows } = await db.query<{ id: string; created_at: string }>(
    'INSERT INTO api_keys (organization_id, key_hash, permissions) VALUES ($1, $2, $3) RETURNING id, created_at',
    [organizationId, hashSecret(key), permissions],
  );
  return { id: rows[0]!.id, key, permissions, organization_id: organizationId, created_at: rows[0]!.created_at };
}

/** Revokes once (a second revoke keeps the first revoked_at); false when there is no key with that id. */
export async function revokeApiKey(db: SqlExecutor, apiKeyId: string): Promise<boolean> {
  // The UPDATE runs whether or not the SELECT reads it; the SELECT sees the row as it was before.
  const { rows } = await db.query(
    `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id)
     SELECT id FROM api_keys WHERE id = $1`,
    [apiKeyId],
  );
  return rows.length > 0;
}
