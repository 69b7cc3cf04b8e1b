import { describe, expect, it } from 'vitest';
import { encodeDataRows, fieldText, readDataRow } from '../../src/store/dataRows.js';
import { testStores } from '../helpers/testApp.js';

// Rows kept as DataRow bytes (the catalog's creatives at start): embedded PGlite hands over what its
// engine wrote, node-postgres's rows are encoded into the same form. Both must read back as the text
// a query gives.

const ROWS = `SELECT * FROM (VALUES
  (1, 'plain', 'https://shop.example.com/a?b=1'),
  (2, 'quote " backslash \\ newline
tab	end', NULL),
  (3, '', 'ünïcödé ✓ 😀')) AS t(n, a, b) ORDER BY n`;

function readAll(bytes: Buffer, fields: number): Array<Array<string | null>> {
  const bounds = new Int32Array(fields * 2);
  const rows = [];
  for (let at = 0; at < bytes.length; ) {
    at = readDataRow(bytes, at, bounds);
    rows.push(Array.from({ length: fields }, (_, index) => fieldText(bytes, bounds, index)));
  }
  return rows;
}

describe('rows as DataRow bytes', () => {
  it('reads back every field as the engine wrote its text, NULL and empty apart, from a transaction', async () => {
    const { db } = (await testStores()).stores;
    const [bytes, { rows }] = await db.transaction(async (tx) => [await tx.dataRows(ROWS), await tx.query<{ n: number; a: string; b: string | null }>(ROWS)] as const);
    const expected = rows.map((row) => [String(row.n), row.a, row.b]);
    expect(expected[1]).toEqual(['2', 'quote " backslash \\ newline\ntab\tend', null]);
    expect(readAll(bytes, 3)).toEqual(expected);
    // The encoder (a server's rows) writes the bytes the embedded engine does.
    expect(encodeDataRows(expected).equals(bytes)).toBe(true);
  });

  it('reads an answer of several megabytes whole, in memory a worker thread can share', async () => {
    const { db } = (await testStores()).stores;
    // About 5.5 MB: the engine's chunks are gathered into 4 MB slabs, so one chunk straddles two.
    const many = 'SELECT n, repeat(md5(n::text), 20) AS text FROM generate_series(1, 8000) AS n ORDER BY n';
    const [bytes, { rows }] = await db.transaction(async (tx) => [await tx.dataRows(many), await tx.query<{ n: number; text: string }>(many)] as const);
    expect(bytes.length).toBeGreaterThan(5 * 2 ** 20);
    expect(readAll(bytes, 2)).toEqual(rows.map((row) => [String(row.n), row.text]));
    if (db.kind === 'embedded') expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it('gives no bytes for no rows, and refuses a row of another width', async () => {
    const { db } = (await testStores()).stores;
    expect((await db.transaction((tx) => tx.dataRows(`${ROWS.replace(' ORDER BY n', '')} WHERE false`))).length).toBe(0);
    const bytes = encodeDataRows([['a', 'b']]);
    expect(() => readDataRow(bytes, 0, new Int32Array(6))).toThrow(/does not hold the fields expected/);
    expect(() => readDataRow(bytes, 1, new Int32Array(4))).toThrow(/no DataRow/);
  });
});
