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
 * once without; one line each; with conversion_id, then the same postback again, all of it stored
 * (a client that timed out resends it whole), each retried on 503 until answered 200: one line more.
 * The service runs in this process, built as the tests build it
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
  // Today's at any hour (rev44 R9: 400 s from earlierToday(400 s) ran past now in a day's first 400 s,
  // their conversions past the 5 minutes' future tolerance): back from a minute ago, a second apart,
  // at midnight once that is reached: no conversion (a minute after its click) is ahead of now but in a day's first minute.
  const other = await cpaClicks(ctx, advertiser, publisherId, 400, (i) => earlierToday(60_000 + i * 1000), 10_000);
  let running = true;
  const started = performance.now();
  const postback = send(ctx, advertiser, late.clicks, withIds, 201).then((counts) => {
    running = false;
    return { ...counts, ms: performance.now() - started };
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
    `MEASURE polite=${polite} backend=${backend} n=${n} ids=${withIds} postback_ms=${Math.round(total.ms)} late_503=${total.refused} late_other=${total.other} ` +
      `other_sent=${sent} other_503=${other503} other_p50_ms=${Math.round(otherTimes[Math.floor(otherTimes.length / 2)] ?? 0)} other_max_ms=${Math.round(otherTimes.at(-1) ?? 0)}`,
  );
  if (!withIds) return;
  // The same postback again, every conversion already stored (a client that timed out resends it whole): each is answered 200.
  const resentAt = performance.now();
  const resent = await send(ctx, advertiser, late.clicks, withIds, 200);
  console.log(`MEASURE resent polite=${polite} backend=${backend} n=${n} resend_ms=${Math.round(performance.now() - resentAt)} resend_503=${resent.refused} resend_other=${resent.other}`);
}

/** The postback's conversions, all at once, each retried on 503 until answered `status`; how many answers were 503 and how many another status. */
async function send(ctx: TestContext, advertiser: Advertiser, clicks: { event_id: string; event_time: number }[], withIds: boolean, status: number) {
  const counts = { refused: 0, other: 0 };
  await Promise.all(
    clicks.map(async (click, i) => {
      for (;;) {
        const answer = await convert(ctx, advertiser, click, withIds ? `late-${i}` : undefined);
        if (answer.statusCode === status) return;
        if (answer.statusCode === 503) counts.refused++;
        else counts.other++;
        await sleep(polite ? Number(answer.headers['retry-after'] ?? 1) * 1000 : 100);
      }
    }),
  );
  return counts;
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
