import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newServeId } from '../src/serving/serveId.js';
import { ServeLedger } from '../src/tracking/serveLedger.js';

/**
 * A pixel's use of the serve ledger (src/tracking/serveLedger.ts) once it is full: the production
 * capacity, every pixel a new serve (impressionCounted, then record, with a fresh id string as a
 * token's claims give it). The benches' runs never filled it (under a million pixels a process),
 * which a service reaches after a million valid impressions. Prints the time a pixel and the memory
 * after each of three rounds (a million pixels each unless given).
 * Usage: `npm run build && node dist/bench/serveLedgerMicroBench.js [<another build's root> [pixels a round]]`:
 * with a root, that build's dist/src/tracking/serveLedger.js is measured (with this build's serve ids).
 */
const CAPACITY = 1_000_000;

async function main(): Promise<void> {
  const root = process.argv[2];
  const round = Number(process.argv[3] ?? 1_000_000);
  const Ledger: typeof ServeLedger = root
    ? ((await import(pathToFileURL(path.resolve(root, 'dist/src/tracking/serveLedger.js')).href)) as { ServeLedger: typeof ServeLedger }).ServeLedger
    : ServeLedger;
  const ledger = new Ledger(CAPACITY);
  let now = Date.now();
  let duplicates = 0;
  const pixels = (count: number) => {
    for (let i = 0; i < count; i++) {
      // About 30,000 serves a second.
      if (i % 32 === 0) now += 1;
      const serveId = Buffer.from(newServeId(now)).toString();
      if (ledger.impressionCounted(serveId)) duplicates++;
      ledger.record(serveId, { impressionAt: now, impressionCounted: true });
    }
  };
  pixels(CAPACITY);
  for (let at = 1; at <= 3; at++) {
    const started = process.hrtime.bigint();
    pixels(round);
    const ns = Number(process.hrtime.bigint() - started) / round;
    const memory = process.memoryUsage();
    console.log(
      `${root ?? 'this build'} round ${at}: ${ns.toFixed(0)} ns a pixel, heap used ${(memory.heapUsed / 1e6).toFixed(0)} MB, array buffers ${(memory.arrayBuffers / 1e6).toFixed(0)} MB, rss ${(memory.rss / 1e6).toFixed(0)} MB`,
    );
  }
  if (duplicates > 0) throw new Error(`${duplicates} new serves were taken for duplicates`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
