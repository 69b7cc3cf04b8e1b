import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPostgres } from '../src/store/postgres.js';
import { POSTGRES_FREE_SPACE_FLOOR_BYTES } from '../src/store/diskSpace.js';
import { openWritableCheck } from '../src/store/writableCheck.js';

/**
 * What embedded Postgres's writable check (writableCheck.ts: one before each statement, each of a
 * transaction's too: fault() and shortOfSpace()) costs beside the cheapest management write: a
 * transaction of two statements (a row locked, then updated) on a fresh embedded PGlite in a temp
 * directory. The transactions include their own checks (three each); the share is those three
 * against the whole. Also fault() and shortOfSpace() alone.
 * Usage: node --import tsx bench/writableCheckMicroBench.ts [checks] [transactions]
 */
const [checks, transactions] = process.argv.slice(2).map(Number);
const CHECKS = checks || 100_000;
const TRANSACTIONS = transactions || 2_000;
const dataDir = mkdtempSync(path.join(tmpdir(), 'writable-check-'));
const db = await openPostgres({ dataDir });
const check = openWritableCheck(path.join(dataDir, 'postgres', 'PG_VERSION'), POSTGRES_FREE_SPACE_FLOOR_BYTES);
try {
  const timeUs = (ask: () => unknown) => {
    const begun = process.hrtime.bigint();
    for (let index = 0; index < CHECKS; index++) ask();
    return Number(process.hrtime.bigint() - begun) / CHECKS / 1000;
  };
  const faultUs = timeUs(() => check.fault());
  const spaceUs = timeUs(() => check.shortOfSpace());
  const checkUs = faultUs + spaceUs;
  await db.exec('CREATE TABLE probe (id int PRIMARY KEY, name text)');
  await db.query('INSERT INTO probe VALUES (1, $1)', ['a']);
  const start = process.hrtime.bigint();
  for (let index = 0; index < TRANSACTIONS; index++) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT id FROM probe WHERE id = 1 FOR UPDATE');
      await tx.query('UPDATE probe SET name = $1 WHERE id = 1', [String(index)]);
    });
  }
  const transactionUs = Number(process.hrtime.bigint() - start) / TRANSACTIONS / 1000;
  console.log(`check ${checkUs.toFixed(2)} µs (fault ${faultUs.toFixed(2)}, space ${spaceUs.toFixed(2)}); transaction ${transactionUs.toFixed(0)} µs; its 3 checks ${((300 * checkUs) / transactionUs).toFixed(2)} % of it`);
} finally {
  check.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
