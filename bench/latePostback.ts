import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStores } from '../src/runtime.js';
import { createAdvertiser, createPublisher } from '../test/helpers/factories.js';
import { createFileDatabase, dropRunDatabases, runDatabasePrefix } from '../test/helpers/fileDatabase.js';
import { convert, cpaClicks, yesterdayNoon } from '../test/helpers/lateConversions.js';
import { earlierToday } from '../test/helpers/earlierToday.js';
import { startTestAppOn, testConfig, type TestContext } from '../test/helpers/testApp.js';
import type { Advertiser } from '../test/helpers/servingFixtures.js';

/**
 * A measurement (bench/README.md, "Late conversions"): `n` (100) CPA conversions of one line item
 * dated yesterday, sent all at once, each retried on 503 (after 100 ms, or after its Retry-After
 * with --polite) until answered 201; meanwhile another line item's conversions with a
 * conversion_id (today's), one after the other, until the postback ends. Once with conversion_id,
 * once without; one line each. The service runs in this process, built as the tests build it
 * (test/helpers/testApp.ts, answering app.inject), on a temp DATA_DIR: embedded PGlite, or with
 * DATABASE_URL a database of its own on that PostgreSQL server, dropped at the end; ClickHouse embedded.
 * `npx tsx bench/latePostback.ts [n] [--polite]`
 */
const args = process.argv.slice(2);
const polite = args.includes('--polite');
const n = Number(args.find((arg) => !arg.startsWith('--')) ?? 100);
if (!Number.isInteger(n) || n < 1) throw new Error('usage: latePostback [n] [--polite]');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(ctx: TestContext, advertiser: Advertiser, publisherId: string, withIds: boolean, backend: string): Promise<void> {
  const late = await cpaClicks(ctx, advertiser, publisherId, n, yesterdayNoon(), 10_000);
  const other = await cpaClicks(ctx, advertiser, publisherId, 400, earlierToday(400_000), 10_000);
  let running = true;
  let late503 = 0;
  let lateOther = 0;
  const started = performance.now();
  const postback = Promise.all(
    late.clicks.map(async (click, i) => {
      for (;;) {
        const answer = await convert(ctx, advertiser, click, withIds ? `late-${i}` : undefined);
        if (answer.statusCode === 201) return;
        if (answer.statusCode === 503) late503++;
        else lateOther++;
        await sleep(polite ? Number(answer.headers['retry-after'] ?? 1) * 1000 : 100);
      }
    }),
  ).then(() => {
    running = false;
    return performance.now() - started;
  });
  let sent = 0;
  let other503 = 0;
  const otherTimes: number[] = [];
  while (running && sent < other.clicks.length) {
    const t = performance.now();
    const answer = await convert(ctx, advertiser, other.clicks[sent]!, `other-${sent}`);
    otherTimes.push(performance.now() - t);
    sent++;
    if (answer.statusCode === 503) other503++;
    else if (answer.statusCode !== 201) throw new Error(answer.body);
  }
  const total = await postback;
  otherTimes.sort((a, b) => a - b);
  console.log(
    `MEASURE polite=${polite} backend=${backend} n=${n} ids=${withIds} postback_ms=${Math.round(total)} late_503=${late503} late_other=${lateOther} ` +
      `other_sent=${sent} other_503=${other503} other_p50_ms=${Math.round(otherTimes[Math.floor(otherTimes.length / 2)] ?? 0)} other_max_ms=${Math.round(otherTimes.at(-1) ?? 0)}`,
  );
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'adsvc-late-postback-'));
const server = process.env.DATABASE_URL || undefined;
const prefix = server === undefined ? undefined : runDatabasePrefix(server);
try {
  const env = { IVT_ALLOW_PRIVATE_IPS: 'true', ...(server === undefined ? {} : { DATABASE_URL: await createFileDatabase(server, prefix!) }) };
  const stores = await openStores(testConfig(dataDir, env));
  const ctx = await startTestAppOn(stores, dataDir, env);
  try {
    const advertiser = await createAdvertiser(ctx);
    const publisher = await createPublisher(ctx);
    for (const withIds of [true, false]) await measure(ctx, advertiser, publisher.id, withIds, server === undefined ? 'embedded' : 'server');
  } finally {
    await ctx.close();
    await stores.close();
  }
} finally {
  if (server !== undefined) await dropRunDatabases(server, prefix!);
  rmSync(dataDir, { recursive: true, force: true });
}
