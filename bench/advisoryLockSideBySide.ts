import path from 'node:path';
import { ADVISORY_LOCKS } from '../src/store/advisoryLock.js';
import { openPostgres, type Postgres } from '../src/store/postgres.js';
import { startPostgresServer, unavailableReason } from '../test/helpers/postgresServer.js';

/**
 * A probe, not a scenario: two builds' withAdvisoryLock (src/store/advisoryLock.ts) on one
 * PostgreSQL server of its own (test/helpers/postgresServer.ts, which needs the server binaries),
 * each taking the billing lock as the event pipeline does (no wait limit under the default 10 s
 * query bound, so the wait is sliced) with an empty step, one lock after another, in alternating
 * rounds. It reports the statements each lock sends, BEGIN and COMMIT included (each one round trip
 * to the server), and the wall time a lock on this machine's loopback, where a round trip is far
 * cheaper than across a network.
 * `npx tsx bench/advisoryLockSideBySide.ts <rootA> <rootB> [rounds] [locks a round]`
 */
const [rootA, rootB, roundsText = '6', locksText = '2000'] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: advisoryLockSideBySide <rootA> <rootB> [rounds] [locks a round]');
if (unavailableReason) throw new Error(unavailableReason);

type WithAdvisoryLock = (db: Postgres, key: number, step: () => Promise<void>) => Promise<void>;

async function main(): Promise<void> {
  const server = await startPostgresServer();
  const db = await openPostgres({ databaseUrl: server.url, dataDir: '', queryTimeoutMs: 10_000 });
  let statements = 0;
  // The same pool, each statement of a transaction counted on its way.
  const counted: Postgres = {
    ...db,
    transaction: (fn, options) =>
      db.transaction((tx) => {
        statements += 2; // BEGIN and COMMIT
        return fn({ ...tx, query: (sql, params) => ((statements += 1), tx.query(sql, params)) });
      }, options),
  };
  try {
    const sides = await Promise.all(
      [rootA!, rootB!].map(async (root) => ({
        root,
        lock: ((await import(path.resolve(root, 'src/store/advisoryLock.ts'))) as { withAdvisoryLock: WithAdvisoryLock }).withAdvisoryLock,
        ms: [] as number[],
        statements: 0,
      })),
    );
    const locks = Number(locksText);
    for (let round = 0; round <= Number(roundsText); round++) {
      // Round 0 warms both up, uncounted.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        statements = 0;
        const started = performance.now();
        for (let i = 0; i < locks; i++) await side.lock(counted, ADVISORY_LOCKS.billing, async () => undefined);
        if (round === 0) continue;
        side.ms.push((performance.now() - started) / locks);
        side.statements = statements / locks;
      }
    }
    for (const side of sides) {
      const sorted = [...side.ms].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)]!;
      console.log(`${side.root}: ${side.statements} statements a lock, ${(median * 1000).toFixed(0)} us a lock (median of ${sorted.length} rounds of ${locks}; ${sorted.map((ms) => (ms * 1000).toFixed(0)).join(' ')})`);
    }
  } finally {
    await db.close();
    server.destroy();
  }
}

await main();
