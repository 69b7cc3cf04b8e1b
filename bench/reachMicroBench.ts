import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { keptWindowReach } from '../src/reporting/reachWindows.js';
import { reachOver } from '../src/reporting/reachBlocks.js';
import { rollupSums } from '../src/reporting/rollupSums.js';
import { addDays } from '../src/reporting/utcDate.js';
import { withStores } from './benchStores.js';
import { DAYS } from './eventGenerator.js';
import { timeSequential } from './latencyStats.js';
import { formatMs } from './scenarioReport.js';
import { SEED_FILE, type ReportSeed } from './scenarios/reportScenario.js';

/**
 * In-process cost of reach (unique_users) in the report bench's 92-day window over its 1,000
 * campaigns, with "today" the last day of the data. The HTTP bench (`report --keep-data`) merges
 * today's users only on the day its data was generated: on any later day its window ends before
 * today and the campaign and line_item rows measure less. This times the same code, reachOver, with
 * that day passed as today, so kept data measures the same thing whenever it runs.
 * Run it on a copy of a `report --full --keep-data` directory: opening it migrates its stores, and
 * it empties and refills the kept states (reach_windows_v1).
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

await withStores(dataDir, async ({ ch }) => {
  await ch.client.command({ query: 'TRUNCATE TABLE IF EXISTS reach_windows_v1' });
  const first = async (perLineItem: boolean) => {
    const started = performance.now();
    await reachOver(ch, ids, from, today, perLineItem, today);
    return performance.now() - started;
  };
  const rows: Array<[string, string]> = [
    ['campaign reach, first request (past days merged and kept)', formatMs(await first(false))],
    ['line_item reach, first request', formatMs(await first(true))],
  ];
  const timed = async (name: string, fn: () => Promise<unknown>) => {
    const latency = await timeSequential(requests, 3, async () => void (await fn()));
    rows.push([`${name}: p50 / p95`, `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`]);
  };
  await timed('campaign reach (reachOver: count check, kept figures, kept state and today merged)', () => reachOver(ch, ids, from, today, false, today));
  await timed('line_item reach', () => reachOver(ch, ids, from, today, true, today));
  // What the HTTP bench measures once the data's day has passed: the same window, every day of it past.
  await timed('campaign reach of the same window with every day past (the day after as today)', () => reachOver(ch, ids, from, today, false, addDays(today, 1)));
  await timed('line_item reach of the same window with every day past', () => reachOver(ch, ids, from, today, true, addDays(today, 1)));
  await timed('the past days alone: count check and kept figures (keptWindowReach, nothing stale)', () => keptWindowReach(ch, 'campaign', ids, from, addDays(today, -1)));
  await timed('campaign sums (rollupSums), for scale', () => rollupSums(ch, 'campaign_id', ids, from, today));
  console.log(`reach in process: ${ids.length} campaigns, window ${from}..${today} with ${today} as today (${dataDir}, ${requests} calls each after 3 warm-up)\n`);
  console.log('| figure | result |\n|---|---|');
  for (const [figure, result] of rows) console.log(`| ${figure} | ${result} |`);
});
