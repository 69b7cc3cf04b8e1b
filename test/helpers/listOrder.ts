import { expect } from 'vitest';
import type { TestContext } from './testApp.js';

/** Tables whose lists the contract orders by created_at, then id (placements' ids are text, the others' UUIDs). */
type ListedTable = 'organizations' | 'publishers' | 'placements' | 'integration_reviews' | 'campaigns' | 'line_items';

/**
 * Ids in a list's order, created_at then id (the contract's), read from the rows: two rows created in
 * the same millisecond (PGlite's clock) or across a clock step are not in creation order.
 */
export async function inListOrder(ctx: TestContext, table: ListedTable, ids: string[]): Promise<string[]> {
  const { rows } = await ctx.stores.db.query<{ id: string }>(`SELECT id FROM ${table} WHERE id::text = ANY($1::text[]) ORDER BY created_at, id`, [ids]);
  expect(rows.length).toBe(ids.length);
  return rows.map((row) => row.id);
}
