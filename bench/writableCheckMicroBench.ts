import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPostgres } from '../src/store/postgres.js';
import { openWritableCheck } from '../src/store/writableCheck.js';

/**
 * What embedded Postgres's writable check (writableCheck.ts: one before each statement, each of a
 * transaction's too) costs beside the cheapest management write: a transaction of two statements
 * (a row locked, then updated) on a fresh embedded PGlite in a temp directory. The transactions
 * include their own checks (three each); the share is those three against the whole.
 * Usage: node --import tsx bench/writableCheckMicroBench.ts [checks] [transactions]
 */
const [checks, transactions] = process.argv.slice(2).map(Number);
const CHECKS = checks || 100_000;
const TRANSACTIONS = transactions || 2_000;
const dataDir = mkdtempSync(path.join(tmpdir(), 'writable-check-'));
const db = await openPostgres({ dataDir });
const check = openWritableCheck(path.join(dataDir, 'postgres', 'PG_VERSION'));
try {
  let start = process.hrtime.bigint();
  for (let index = 0; index < CHECKS; index++) check.fault();
  const checkUs = Number(process.hrtime.bigint() - start) / CHECKS / 1000;
  await db.exec('CREATE TABLE probe (id int PRIMARY KEY, name text)');
  await db.query('INSERT INTO probe VALUES (1, $1)', ['a']);
  start = process.hrtime.bigint();
  for (let index = 0; index < TRANSACTIONS; index++) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT id FROM probe WHERE id = 1 FOR UPDATE');
      await tx.query('UPDATE probe SET name = $1 WHERE id = 1', [String(index)]);
    });
  }
  const transactionUs = Number(process.hrtime.bigint() - start) / TRANSACTIONS / 1000;
  console.log(`check ${checkUs.toFixed(2)} µs; transaction ${transactionUs.toFixed(0)} µs; its 3 checks ${((300 * checkUs) / transactionUs).toFixed(2)} % of it`);
} finally {
  check.close();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
