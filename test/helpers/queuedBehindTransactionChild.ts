/**
 * A process with embedded Postgres in DATA_DIR argv[2] (its postgres/ on a loop-mounted ext4 whose
 * error trigger is argv[3]): while a transaction holds PGlite, two writes are sent (they wait their
 * turn), the disk fails, and the transaction ends without writing; prints what became of the writes.
 * Unchecked, the first meets the fault in its commit's WAL write (a PANIC in Postgres, answered as an
 * error) and the second reaches PGlite after that PANIC and never returns: then nothing is printed,
 * and the test ends the process.
 */
import { writeFileSync } from 'node:fs';
import { openPostgres } from '../../src/store/postgres.js';

const [dataDir, errorTrigger] = process.argv.slice(2) as [string, string];
const db = await openPostgres({ dataDir });
await db.exec('CREATE TABLE queued (id int PRIMARY KEY, name text)');
// The same small write a few times: its files are open and its pages in memory, so the fault is met
// only in the commit's WAL write, as in try40 F10.
for (let write = 0; write < 5; write++) await db.query('INSERT INTO queued VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET name = excluded.name', [`before-${write}`]);
const outcome = (write: Promise<unknown>) =>
  write.then(
    () => 'answered',
    (error: unknown) => `${(error as Error).constructor.name}: ${(error as Error).message}`,
  );
let queued: Promise<string>[] = [];
await db.transaction(async (tx) => {
  await tx.query('SELECT name FROM queued WHERE id = 1');
  queued = ['after', 'later'].map((name) => outcome(db.query('UPDATE queued SET name = $1 WHERE id = 1', [name])));
  writeFileSync(errorTrigger, 'adsvc test: a disk error\n');
});
console.log(JSON.stringify({ queued: await Promise.all(queued) }));
process.exit(0);
