import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { keptWindowReach } from '../src/reporting/reachWindows.js';
import { reachOver } from '../src/reporting/reachBlocks.js';
import { KeptReachWrites } from '../src/reporting/keptReachWrites.js';
import { rollupSums } from '../src/reporting/rollupSums.js';
import { addDays } from '../src/utcDays.js';
import { withStores } from './benchStores.js';
import { DAYS, generateEventSpan, usersOf } from './eventGenerator.js';
import { summarizeLatencies, timeSequential } from './latencyStats.js';
import { formatMs } from './scenarioReport.js';
import { SEED_FILE, type ReportSeed } from './scenarios/reportScenario.js';

/**
 * In-process cost of reach (unique_users) in the report bench's 92-day window over its 1,000
 * campaigns, with "today" the last day of the data. The HTTP bench (`report --keep-data`) merges
 * today's users only on the day its data was generated: on any later day its window ends before
 * today and the campaign and line_item rows measure less. This times the same code, reachOver, with
 * that day passed as today, so kept data measures the same thing whenever it runs.
 * Run it on a copy of a `report --full --keep-data` directory: opening it migrates its stores, it
 * empties and refills the kept states (reach_windows_v1, reach_today_windows_v1), and it adds
 * 300,000 events to the data's last day (the calls with new impressions).
 * Usage: npm run build && node dist/bench/reachMicroBench.js <copy of the directory> [requests]
 */
const [directory, requestsArgument] = process.argv.slice(2);
if (!directory) throw new Error('usage: node dist/bench/reachMicroBench.js <copy of a report --keep-data directory> [requests]');
const requests = Number(requestsArgument ?? 50);
const dataDir = path.resolve(directory);
const seed = JSON.parse(readFileSync(path.join(dataDir, SEED_FILE), 'utf8')) as ReportSeed;
const today = new Date(seed.todayMs).toISOString().slice(0, 10);
const from = addDays(today, -(DAYS - 1));
const ids = seed.campaignIds;

await withStores(dataDir, async ({ db, ch }) => {
  await ch.client.command({ query: 'TRUNCATE TABLE IF EXISTS reach_windows_v1' });
  await ch.client.command({ query: 'TRUNCATE TABLE IF EXISTS reach_today_windows_v1' });
  let failedWrites = 0;
  const writes = (quietMs?: number) => new KeptReachWrites(ch, pino({ level: 'warn' }), { inc: () => (failedWrites += 1) }, quietMs);
  const reachWrites = writes();
  const reach = (perLineItem: boolean, asToday = today, queue = reachWrites) => reachOver({ ch, reachWrites: queue }, ids, from, today, perLineItem, asToday);
  const first = async (perLineItem: boolean) => {
    const started = performance.now();
    await reach(perLineItem);
    const answered = performance.now() - started;
    await reachWrites.settled();
    return `${formatMs(answered)} (then written in ${formatMs(performance.now() - started - answered)})`;
  };
  const rows: Array<[string, string]> = [
    ['campaign reach, first request (past days merged and kept; the whole window kept after the answer)', await first(false)],
    ['line_item reach, first request', await first(true)],
  ];
  const timed = async (name: string, fn: () => Promise<unknown>) => {
    const latency = await timeSequential(requests, 3, async () => void (await fn()));
    rows.push([`${name}: p50 / p95`, `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`]);
  };
  await timed('campaign reach, nothing new since the last report (reachOver: the count check reads every kept figure)', () => reach(false));
  await timed('line_item reach, nothing new since the last report', () => reach(true));

  // The other end: every campaign had an impression since the last report, so each is merged as before
  // the whole window was kept (its kept past days with today's blocks). First with the kept rows
  // emptied before each call and every campaign written after it (no quiet time), awaited untimed:
  // the answer alone, and the write's own time.
  const calls = Math.min(requests, 15);
  const everyTime = writes(0);
  for (const [name, perLineItem] of [['campaign', false], ['line_item', true]] as const) {
    const answers: number[] = [];
    const written: number[] = [];
    for (let call = 0; call < calls; call += 1) {
      await ch.client.command({ query: 'TRUNCATE TABLE reach_today_windows_v1' });
      const started = performance.now();
      await reach(perLineItem, today, everyTime);
      const answered = performance.now();
      await everyTime.settled();
      answers.push(answered - started);
      written.push(performance.now() - answered);
    }
    const answer = summarizeLatencies(answers);
    const write = summarizeLatencies(written);
    rows.push([
      `${name} reach, every campaign new since the last report (${calls} calls; kept rows emptied before each): answer p50 / p95, then the write`,
      `${formatMs(answer.p50)} / ${formatMs(answer.p95)}, write ${formatMs(write.p50)} / ${formatMs(write.p95)}`,
    ]);
  }
  // Then as under live traffic: 10,000 events (about 8,900 valid impressions, nearly every campaign
  // some) added to today before each call, untimed, and the calls back to back: with the service's
  // quiet minute a campaign is written once and then only merged; without it, each call's write
  // runs during the next one (on chdb, parameterized queries run one at a time).
  const lineItems = await db.query<{ campaign_id: string; id: string }>('SELECT campaign_id, id FROM line_items WHERE campaign_id = ANY($1::uuid[])', [ids]);
  const lineItemOf = new Map(lineItems.rows.map((row) => [row.campaign_id, row.id]));
  const generated = {
    campaignIds: ids,
    lineItemIds: ids.map((id) => lineItemOf.get(id)!),
    publisher: { id: seed.tenancy.publisherId, placementIds: seed.tenancy.placements.map((placement) => placement.id) },
    events: 10_000,
    todayMs: seed.todayMs,
  };
  let added = 0;
  const addImpressions = async () => {
    const span = { startMs: seed.todayMs + 12 * 3_600_000, spanMs: 3_600_000, firstRow: seed.events + (seed.addedEvents ?? 0) + 10_000_000 + added, users: usersOf(seed.events) };
    await generateEventSpan(ch, generated, span);
    added += generated.events;
  };
  for (const [name, perLineItem] of [['campaign', false], ['line_item', true]] as const) {
    for (const [quiet, queue] of [['quiet minute', writes()], ['no quiet time', writes(0)]] as const) {
      const samples: number[] = [];
      for (let call = 0; call < calls; call += 1) {
        await addImpressions();
        const started = performance.now();
        await reach(perLineItem, today, queue);
        samples.push(performance.now() - started);
      }
      await queue.settled();
      const latency = summarizeLatencies(samples);
      rows.push([`${name} reach, new impressions before each call, back to back (${quiet}; ${calls} calls): p50 / p95`, `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`]);
    }
  }
  // What the HTTP bench measures once the data's day has passed: the same window, every day of it past.
  await timed('campaign reach of the same window with every day past (the day after as today)', () => reach(false, addDays(today, 1)));
  await timed('line_item reach of the same window with every day past', () => reach(true, addDays(today, 1)));
  await timed('the past days alone: count check and kept figures (keptWindowReach, nothing stale)', () => keptWindowReach(ch, 'campaign', ids, from, addDays(today, -1)));
  await timed('campaign sums (rollupSums), for scale', () => rollupSums(ch, 'campaign_id', ids, from, today));
  if (failedWrites > 0) throw new Error(`${failedWrites} writes of kept reach failed (logged above)`);
  console.log(`reach in process: ${ids.length} campaigns, window ${from}..${today} with ${today} as today (${dataDir}, ${requests} calls each after 3 warm-up)\n`);
  console.log('| figure | result |\n|---|---|');
  for (const [figure, result] of rows) console.log(`| ${figure} | ${result} |`);
});
