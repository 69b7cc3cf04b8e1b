import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(async () => {
  await ctx.close();
});

const text = (field: Buffer | null | undefined) => (field === null || field === undefined ? field : field.toString('utf8'));

describe('Postgres.rowBytes (a row kept as the bytes the engine wrote)', () => {
  it('gives the first row the way query() reads it, nulls and non-ASCII text included, and undefined without a row', async () => {
    const { db } = ctx.stores;
    const sql = `SELECT $1::text AS a, NULL::text AS b, json_build_array($1::text, $2::int)::text AS c`;
    const fields = await db.rowBytes(sql, ['Café ☕ "quoted"', 7]);
    const { rows } = await db.query<{ a: string; b: null; c: string }>(sql, ['Café ☕ "quoted"', 7]);
    expect(fields?.map(text)).toEqual([rows[0]!.a, null, rows[0]!.c]);
    expect(await db.rowBytes('SELECT 1 WHERE $1::int = 2', [1])).toBeUndefined();
    // The same statement again (prepared once, embedded) with other values.
    expect((await db.rowBytes(sql, ['x', 8]))?.map(text)).toEqual(['x', null, '["x", 8]']);
  });

  it('throws the engine error for a bad value and answers the next call; no statement is left behind', async () => {
    const { db } = ctx.stores;
    const sql = 'SELECT $1::uuid::text AS id';
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(db.rowBytes(sql, ['not-a-uuid'])).rejects.toMatchObject({ code: '22P02' });
    }
    const id = '6c4b1f4e-2f0a-4f43-9c39-1d2b7a2e9a10';
    expect((await db.rowBytes(sql, [id]))?.map(text)).toEqual([id]);
    if (db.kind === 'embedded') {
      const { rows } = await db.query<{ statements: number }>(
        'SELECT count(*)::int AS statements FROM pg_prepared_statements WHERE statement = $1',
        [sql],
      );
      expect(rows[0]!.statements).toBe(1);
    }
  });

  it('never reads the rows of a transaction that is still open (and then rolls back)', async () => {
    const { db } = ctx.stores;
    const advertiser = await createAdvertiser(ctx);
    const count = 'SELECT count(*)::text FROM campaigns WHERE user_id = $1';
    let during: Promise<(Buffer | null)[] | undefined> | undefined;
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO campaigns (organization_id, user_id, name, brand_name, status)
           VALUES ((SELECT m.organization_id FROM memberships m WHERE m.user_id = $1::uuid), $1, 'uncommitted', 'Brand', 'paused')`, [
          advertiser.user.id,
        ]);
        during = db.rowBytes(count, [advertiser.user.id]);
        // Gives the call every chance to run before the transaction ends.
        await new Promise((resolve) => setImmediate(resolve));
        await tx.query('SELECT 1');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await during!)?.map(text)).toEqual(['0']);
  });
});

// Embedded only: a server's statements are unnamed (pg), so always planned with their values.
describe.skipIf(testDatabaseUrl !== undefined)('Postgres.rowBytes on embedded PGlite', () => {
  it('plans its prepared statement with each call’s values, never a cached generic plan', async () => {
    const { db } = ctx.stores;
    const sql = "SELECT count(*)::text FROM campaigns WHERE $1::timestamptz IS NULL OR created_at > $1::timestamptz";
    for (let call = 0; call < 12; call++) await db.rowBytes(sql, [call % 2 === 0 ? null : '2020-01-01T00:00:00Z']);
    const { rows } = await db.query<{ generic_plans: number; custom_plans: number }>(
      'SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement = $1',
      [sql],
    );
    expect(rows).toEqual([{ generic_plans: 0, custom_plans: 12 }]);
  });
});
