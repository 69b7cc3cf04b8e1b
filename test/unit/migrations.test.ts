import { writeFileSync, mkdirSync, cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { MigrationError, migratePostgres, migrateClickHouse, migrateClickHouseOnce, readMigrationFiles, splitStatements } from '../../src/store/migrate.js';
import { openPostgres, type Postgres } from '../../src/store/postgres.js';
import { openClickHouse, type ClickHouse } from '../../src/store/clickhouse.js';
import { packageRoot } from '../../src/packageRoot.js';
import { targetingSchema } from '../../src/management/targetingSchema.js';
import { testDatabaseUrl } from '../helpers/testApp.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

describe('splitStatements', () => {
  it('splits at line-ending semicolons and skips comments', () => {
    expect(splitStatements('-- note\nCREATE TABLE a (x int);\n\nCREATE TABLE b (y int);\n')).toEqual([
      'CREATE TABLE a (x int)',
      'CREATE TABLE b (y int)',
    ]);
  });

  it('keeps a dollar-quoted function body whole', () => {
    const sql = 'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN NULL;\nEND;\n$$;\nSELECT 1;';
    expect(splitStatements(sql)).toHaveLength(2);
    expect(splitStatements(sql)[0]).toContain('RETURN NULL;\nEND;');
  });
});

describe('readMigrationFiles', () => {
  it('reads numbered files in order and ignores others', async () => {
    const folder = tempDirectory('mig-');
    writeFileSync(path.join(folder, '0002_b.sql'), 'SELECT 2;');
    writeFileSync(path.join(folder, '0001_a.sql'), 'SELECT 1;');
    writeFileSync(path.join(folder, 'notes.md'), '# not a migration');
    expect((await readMigrationFiles(folder)).map((file) => file.name)).toEqual(['0001_a.sql', '0002_b.sql']);
  });
});

describe('migrations on a real engine', () => {
  let db: Postgres;
  let ch: ClickHouse;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDirectory('migrate-');
    if (!testDatabaseUrl) cpSync(inject('pgliteTemplate'), path.join(dataDir, 'postgres'), { recursive: true });
    db = await openPostgres({ databaseUrl: testDatabaseUrl, dataDir });
    ch = await openClickHouse({ database: 'adsvc', dataDir });
  });
  afterAll(async () => {
    await db.close();
    await ch.close();
  });

  it('applies every Postgres migration once; running again is a no-op', async () => {
    await migratePostgres(db);
    expect(await migratePostgres(db)).toEqual([]);
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    const files = await readMigrationFiles(path.join(packageRoot, 'migrations'));
    expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(files.map((file) => file.name)));
  });

  it('0019 rewrites country targeting stored before the ISO 3166-1 rule without widening any delivery', async () => {
    await migratePostgres(db);
    // Rows as session 40 stored them (any code ICU names as a region), written past the schema.
    const stored: Record<string, unknown> = {
      excludedUk: { countries: { exclude: ['UK'] } },
      includedUsUk: { keywords: { include: ['shoes'] }, countries: { include: ['US', 'UK', 'GB'], exclude: ['EU', 'ZR'] } },
      includedEuOnly: { countries: { include: ['EU', 'ZZ'], exclude: ['UN'] } },
      includedEuAndUk: { countries: { include: ['EU', 'UK'] } },
      includedEmpty: { countries: { include: [], exclude: ['XA'] } },
      // The geo data gives one IPv6 range under AN (withdrawn): an exclude of it excludes readers.
      excludedAn: { countries: { include: ['AN', 'SU'], exclude: ['AN', 'UN'] } },
      valid: { countries: { include: ['DE', 'XK'] }, languages: ['de'] },
      none: {},
    };
    const ids: Record<string, string> = {};
    await db.transaction(async (tx) => {
      const user = await tx.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [`m0019-${Date.now()}@example.com`]);
      const campaign = await tx.query<{ id: string }>(
        "INSERT INTO campaigns (user_id, name, brand_name, status) VALUES ($1, 'c', 'b', 'paused') RETURNING id",
        [user.rows[0]!.id],
      );
      for (const [title, targeting] of Object.entries(stored)) {
        const row = await tx.query<{ id: string }>(
          "INSERT INTO line_items (campaign_id, title, status, targeting) VALUES ($1, $2, 'draft', $3::jsonb) RETURNING id",
          [campaign.rows[0]!.id, title, JSON.stringify(targeting)],
        );
        ids[title] = row.rows[0]!.id;
      }
    });
    const before = await db.query<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM line_items WHERE id = ANY ($1)', [Object.values(ids)]);
    const changesBefore = await db.query<{ n: string }>('SELECT count(*) AS n FROM catalog_changes');

    // The database above is already migrated, so 0019 is run again on these rows: it is what a
    // database of that release meets at its first start of this one.
    const migration = (await readMigrationFiles(path.join(packageRoot, 'migrations'))).find((file) => file.name.startsWith('0019_'))!;
    await db.transaction(async (tx) => {
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
    });

    const { rows } = await db.query<{ id: string; targeting: Record<string, unknown>; updated_at: Date }>(
      'SELECT id, targeting, updated_at FROM line_items WHERE id = ANY ($1)',
      [Object.values(ids)],
    );
    const after = Object.fromEntries(rows.map((row) => [Object.keys(ids).find((title) => ids[title] === row.id)!, row.targeting]));
    expect(after).toEqual({
      excludedUk: { countries: { exclude: ['GB'] } },
      includedUsUk: { keywords: { include: ['shoes'] }, countries: { include: ['US', 'GB'], exclude: ['CD'] } },
      // Dropping EU and ZZ would leave an empty include: everywhere, where it served nowhere.
      includedEuOnly: { countries: { include: ['EU', 'ZZ'], exclude: [] } },
      includedEuAndUk: { countries: { include: ['GB'] } },
      includedEmpty: { countries: { include: [], exclude: [] } },
      excludedAn: { countries: { include: ['AN'], exclude: ['AN'] } },
      valid: { countries: { include: ['DE', 'XK'] }, languages: ['de'] },
      none: {},
    });
    // What GET answers now goes back through PUT, but for the include that names no country.
    for (const [title, targeting] of Object.entries(after)) {
      expect({ title, ok: targetingSchema.safeParse(targeting).success }).toEqual({ title, ok: title !== 'includedEuOnly' });
    }
    // No one edited them; running instances hear of the rows that changed (6), by the triggers.
    expect(Object.fromEntries(rows.map((row) => [row.id, row.updated_at.getTime()]))).toEqual(
      Object.fromEntries(before.rows.map((row) => [row.id, row.updated_at.getTime()])),
    );
    const changes = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM catalog_changes')).rows[0]!.n);
    const changesAfter = await changes();
    // (A shared server database may hear of other tests' changes meanwhile.)
    if (!testDatabaseUrl) expect(changesAfter - Number(changesBefore.rows[0]!.n)).toBe(6);
    // Idempotent: a second run writes nothing.
    await db.transaction(async (tx) => {
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
    });
    if (!testDatabaseUrl) expect(await changes()).toBe(changesAfter);
  });

  it('applies every ClickHouse migration once; running again is a no-op', async () => {
    const applied = await migrateClickHouse(ch);
    const files = await readMigrationFiles(path.join(packageRoot, 'clickhouse'));
    expect(applied).toEqual(files.map((file) => file.name));
    expect(await migrateClickHouse(ch)).toEqual([]);
  });

  it('runs the ClickHouse migrations of instances starting together once, so a backfill is not repeated', async () => {
    const folder = tempDirectory('once-');
    const table = `backfill_probe_${Date.now()}`;
    writeFileSync(path.join(folder, '9101_backfill_probe.sql'), `CREATE TABLE IF NOT EXISTS ${table} (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO ${table} VALUES (1);\n`);
    const [first, second] = await Promise.all([migrateClickHouseOnce(db, ch, folder), migrateClickHouseOnce(db, ch, folder)]);
    expect([...first, ...second]).toEqual(['9101_backfill_probe.sql']);
    const result = await ch.client.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' });
    expect(await result.json()).toEqual([{ n: 1 }]);
  });

  it('stops on a failing migration with the file name and the engine message, recording nothing', async () => {
    const folder = tempDirectory('bad-');
    mkdirSync(folder, { recursive: true });
    const name = `9001_broken_${Date.now()}.sql`;
    writeFileSync(path.join(folder, name), 'CREATE TABLE broken_ok_probe (x int);\nCREATE TABLE broken (x nosuchtype);\n');
    const failure = migratePostgres(db, folder);
    await expect(failure).rejects.toThrow(MigrationError);
    await expect(migratePostgres(db, folder)).rejects.toThrow(new RegExp(`${name}.*nosuchtype`));
    const { rows } = await db.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
    expect(rows).toHaveLength(0);
    // The whole run is one transaction: the statement before the failing one is rolled back too.
    const { rows: probe } = await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'broken_ok_probe'");
    expect(probe).toHaveLength(0);
  });
});
