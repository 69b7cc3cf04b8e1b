import type { SqlExecutor } from '../store/postgres.js';

/**
 * Names of the ids a breakdown found in the rollup, from Postgres. The ids come from rows already
 * narrowed to the organization's campaigns, so these lookups need no tenancy condition of their own.
 * A deleted campaign's line items and creatives are named from its tombstone (migrations/0017). An
 * id without a row (the nil creative of imported events, a deleted placement) has no name.
 */
export async function lineItemTitles(db: SqlExecutor, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, title AS name FROM line_items WHERE id = ANY ($1::uuid[])
     UNION ALL SELECT id, title FROM deleted_line_items WHERE id = ANY ($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function creativeTitles(db: SqlExecutor, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, title AS name FROM creatives WHERE id = ANY ($1::uuid[])
     UNION ALL SELECT id, title FROM deleted_creatives WHERE id = ANY ($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function placementNames(db: SqlExecutor, ids: string[]): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ id: string; name: string | null }>('SELECT id, name FROM placements WHERE id = ANY ($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.name]));
}
