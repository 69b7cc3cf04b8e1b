import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchOptions } from '../benchOptions.js';
import type { Postgres } from '../../src/store/postgres.js';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { withStores } from '../benchStores.js';
import { keptWindowReach } from '../../src/reporting/reachWindows.js';
import { generateCatalog } from '../catalogGenerator.js';
import { DAY_MS, DAYS, generateEvents, generateEventSpan, usersOf } from '../eventGenerator.js';
import { requestJson } from '../httpJson.js';
import { summarizeLatencies, timeSequential, type LatencySummary } from '../latencyStats.js';
import { formatMs, formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { generateServeCounts, type ServeCountTotals } from '../serveCountGenerator.js';
import { prepareService } from '../serviceUnderTest.js';
import { progress } from '../progress.js';
import { rawAggregation, rawInvalidImpressions, rawReach, rawServeCounts, sameTotals, totals } from '../reportTotals.js';
import { BENCH_ADMIN_TOKEN } from '../serviceProcess.js';
import { cpuTicks, MICROS_PER_TICK } from '../processCpu.js';

const CAMPAIGNS = 1_000;
const RAW_REPETITIONS = 10;
const PLACEMENTS = 40;
const COUNTRIES = 11;
/** Campaigns whose reach is compared with an exact distinct count over the raw events. */
const REACH_SAMPLE = 20;
/** Largest relative reach error accepted: 4 standard errors of the rollup's sketch (docs/reporting.md). */
const REACH_TOLERANCE = 0.04;
/** Written into a --keep-data directory once its events are generated; a later run with the same size reuses them. */
export const SEED_FILE = 'bench-report-seed.json';

export interface ReportSeed {
  /** Events generated over the 92 days up to generatedMs (what --events names). */
  events: number;
  /** Midnight UTC of the window's last day: the generation day, or the last day --through-today added. */
  todayMs: number;
  generatedMs?: number;
  /** Events of the days after the generation day that --through-today added (1/92 of `events` a day). */
  addedEvents?: number;
  tenancy: BenchTenancy;
  campaignIds: string[];
  generationSeconds: number;
  serveCounts: ServeCountTotals;
}

type Row = Record<string, unknown>;

/** One timed report request: the URL, who asks, and how many rows it must answer. */
interface TimedReport {
  name: string;
  figure: string;
  url: string;
  headers: Record<string, string>;
  rows: number;
  /** Pages walked by successive requests (offset = page * limit); one page when absent. */
  pages?: number;
}

/**
 * 1,000 campaigns of one organization and N events over the last 92 days (UTC), generated inside
 * ClickHouse with INSERT ... SELECT FROM numbers() into events_v1, so the materialized views fill
 * the rollups exactly as live traffic would, and serve counts per placement and day; then every
 * 92-day breakdown, the publisher report and the operator's totals over HTTP, each checked against
 * the raw events, and the same aggregation straight over the raw events for the ratio.
 */
export async function reportScenario(options: BenchOptions): Promise<ScenarioReport> {
  if (options.url) throw new Error('report writes its events straight into ClickHouse: run it without --url (DATABASE_URL/CLICKHOUSE_URL select servers)');
  const events = options.events ?? (options.full ? 100_000_000 : 5_000_000);
  const requests = options.full ? 100 : 50;
  const failures: string[] = [];
  const keptDataDir = options.keepData === undefined ? undefined : path.resolve(options.keepData);
  if (options.throughToday && keptDataDir === undefined) throw new Error('--through-today adds days to kept data: name its directory with --keep-data');
  if (keptDataDir !== undefined) mkdirSync(keptDataDir, { recursive: true });
  // Read before the stores open the directory (which writes into it).
  const kept = keptDataDir === undefined ? undefined : keptSeed(keptDataDir, events);

  /** The data of the run: generated now, or the kept directory's (its kept reach emptied; --through-today adds the days since). */
  async function seedStores(db: Postgres, ch: ClickHouse): Promise<ReportSeed> {
    if (kept) {
      progress(`reusing the ${formatNumber(events)} events kept in ${keptDataDir}`);
      // Reach states an earlier run kept (clickhouse/0010, 0014): without them the first request is cold, as on fresh data.
      await ch.client.command({ query: 'TRUNCATE TABLE IF EXISTS reach_windows_v1' });
      await ch.client.command({ query: 'TRUNCATE TABLE IF EXISTS reach_today_windows_v1' });
      return options.throughToday ? await addDaysThroughToday(db, ch, kept, keptDataDir!) : kept;
    }
    const todayMs = midnightUtc(Date.now());
    const tenancy = await seedTenancy(db, PLACEMENTS, 0);
    const catalog = generateCatalog({ lineItems: CAMPAIGNS, lineItemsPerCampaign: 1, placements: [] });
    await seedCatalog(db, tenancy.userId, catalog, 'active');
    const started = performance.now();
    progress(`generating ${formatNumber(events)} events in ClickHouse`);
    const placementIds = tenancy.placements.map((placement) => placement.id);
    await generateEvents(ch, {
      campaignIds: catalog.map((campaign) => campaign.id),
      lineItemIds: catalog.map((campaign) => campaign.lineItems[0]!.id),
      events,
      todayMs,
      publisher: { id: tenancy.publisherId, placementIds },
    });
    const serveCounts = await generateServeCounts(ch, placementIds, todayMs);
    const seed: ReportSeed = {
      events,
      todayMs,
      tenancy,
      campaignIds: catalog.map((campaign) => campaign.id),
      generationSeconds: (performance.now() - started) / 1000,
      serveCounts,
    };
    if (keptDataDir !== undefined) writeFileSync(path.join(keptDataDir, SEED_FILE), JSON.stringify(seed));
    return seed;
  }

  const service = await prepareService(
    'report',
    options,
    {
      stores: async ({ db, ch }): Promise<ReportSeed> => withEarlierWindowsKept(ch, await seedStores(db, ch)),
    },
    { keptDataDir },
  );
  const { seeded } = service;
  // --past-window: the same 92 days moved back by one, so that every day of the window is past.
  const lastDayMs = options.pastWindow ? seeded.todayMs - DAY_MS : seeded.todayMs;
  const window = { from: isoDay(lastDayMs - (DAYS - 1) * DAY_MS), to: isoDay(lastDayMs) };
  const advertiser = { 'x-api-key': seeded.tenancy.apiKey };
  const publisher = { authorization: `Bearer ${seeded.tenancy.publisherToken}` };
  const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
  const dates = `date_from=${window.from}&date_to=${window.to}`;
  const advertiserUrl = (query: string) => `${service.baseUrl}/v1/advertiser/reporting/campaigns?${dates}&${query}`;
  const timedReports: TimedReport[] = [
    { name: 'campaign', figure: `92-day campaign breakdown, ${formatNumber(CAMPAIGNS)} rows (limit=1000)`, url: advertiserUrl('breakdown=campaign&limit=1000'), headers: advertiser, rows: CAMPAIGNS },
    { name: 'campaign page', figure: '92-day campaign breakdown, one page of 100', url: advertiserUrl('breakdown=campaign&limit=100'), headers: advertiser, rows: 100, pages: 10 },
    { name: 'daily', figure: `92-day daily breakdown, ${DAYS} rows`, url: advertiserUrl('breakdown=daily&limit=100'), headers: advertiser, rows: DAYS },
    { name: 'line_item', figure: `92-day line_item breakdown, ${formatNumber(CAMPAIGNS)} rows`, url: advertiserUrl('breakdown=line_item&limit=1000'), headers: advertiser, rows: CAMPAIGNS },
    { name: 'creative', figure: `92-day creative breakdown, ${formatNumber(CAMPAIGNS)} rows`, url: advertiserUrl('breakdown=creative&limit=1000'), headers: advertiser, rows: CAMPAIGNS },
    { name: 'placement', figure: `92-day placement breakdown, ${PLACEMENTS} rows`, url: advertiserUrl('breakdown=placement&limit=1000'), headers: advertiser, rows: PLACEMENTS },
    { name: 'country', figure: `92-day country breakdown, ${COUNTRIES} rows`, url: advertiserUrl('breakdown=country&limit=1000'), headers: advertiser, rows: COUNTRIES },
    { name: 'hourly', figure: '92-day hourly breakdown, pages of 1,000 hours', url: advertiserUrl('breakdown=hourly&limit=1000'), headers: advertiser, rows: 1000, pages: 2 },
    { name: 'publisher placement', figure: `92-day publisher report, ${PLACEMENTS} placements`, url: `${service.baseUrl}/v1/publisher/reporting?${dates}&breakdown=placement`, headers: publisher, rows: PLACEMENTS },
    { name: 'publisher daily', figure: `92-day publisher report, ${DAYS} days`, url: `${service.baseUrl}/v1/publisher/reporting?${dates}&breakdown=daily`, headers: publisher, rows: DAYS },
    { name: 'operator', figure: `92-day operator totals (GET /v1/admin/reporting), ${DAYS} days`, url: `${service.baseUrl}/v1/admin/reporting?${dates}`, headers: admin, rows: DAYS },
  ];
  // False for kept data reused on a later day: the window ends before the service's today, so no report merges today's users.
  const reachesToday = window.to === isoDay(Date.now());
  const staleReports = timedReports.filter((report) => report.name === 'campaign' || report.name === 'line_item');
  const fetchRows = async (url: string, headers: Record<string, string>, expectedRows: number): Promise<Row[]> => {
    const answer = await requestJson<{ data: Row[] }>('GET', url, { headers });
    if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    if (answer.body.data.length !== expectedRows) throw new Error(`GET ${url} returned ${answer.body.data.length} rows, expected ${expectedRows}`);
    return answer.body.data;
  };
  const latencies = new Map<string, LatencySummary>();
  const answers = new Map<string, Row[]>();
  /** The every-campaign-new rows' requests, in the order they were sent. */
  const staleRuns = new Map<string, { requests: StaleRequest[]; others: OthersCpu }>();
  /** How long each report's first request took: the campaign and line_item ones merge and keep the past days' reach. */
  const firstMs = new Map<string, number>();
  try {
    progress(`checking every report once, then timing ${requests} requests of each`);
    for (const report of timedReports) {
      const started = performance.now();
      answers.set(report.name, await fetchRows(report.url, report.headers, report.rows));
      firstMs.set(report.name, performance.now() - started);
    }
    // Every hour of the window, for the hourly totals: 2,208 hours in three pages.
    answers.set('hourly', [
      ...answers.get('hourly')!,
      ...(await fetchRows(`${timedReports.find((report) => report.name === 'hourly')!.url}&offset=1000`, advertiser, 1000)),
      ...(await fetchRows(`${timedReports.find((report) => report.name === 'hourly')!.url}&offset=2000`, advertiser, DAYS * 24 - 2000)),
    ]);
    for (const report of timedReports) {
      const pages = report.pages ?? 1;
      const url = (index: number) => (pages === 1 ? report.url : `${report.url}&offset=${(index % pages) * report.rows}`);
      latencies.set(report.name, await timeSequential(requests, 5, async (index) => void (await fetchRows(url(index), report.headers, report.rows))));
    }
    if (reachesToday) {
      for (const report of staleReports) {
        const requests: StaleRequest[] = [];
        const rowStart = othersBusy(service.pid!);
        for (let index = 0; index < STALE_REQUESTS; index++) {
          // A second apart, untimed: the write after each answer is done before the next request.
          await new Promise((resolve) => setTimeout(resolve, 1000));
          // The window lengths interleaved (16 is prime to 45), so the longest ones are not all the row's first requests.
          const later = (index * WINDOW_STRIDE) % STALE_REQUESTS;
          const from = laterFrom(window.from, later);
          const before = othersBusy(service.pid!);
          const started = performance.now();
          await fetchRows(report.url.replace(`date_from=${window.from}`, `date_from=${from}`), report.headers, report.rows);
          const ms = performance.now() - started;
          requests.push({ ms, days: DAYS - later - 1, others: othersBusy(service.pid!).since(before) });
        }
        staleRuns.set(report.name, { requests, others: othersBusy(service.pid!).since(rowStart) });
      }
    }
  } catch (error) {
    failures.push((error as Error).message);
    await service.stop();
    return { scenario: 'report', figures: [], notes: [], failures };
  }
  failures.push(...(await service.stop()));
  const profile = service.profileSummary();

  progress('timing the same sums over the raw events');
  const reachSample = seeded.campaignIds.slice(0, REACH_SAMPLE);
  const raw = await withStores(service.dataDir!, async ({ ch }) => {
    const query = (grouping: 'campaign' | 'daily') => rawAggregation(ch, grouping, seeded.campaignIds, window);
    return {
      totals: await query('campaign'),
      invalidImpressions: await rawInvalidImpressions(ch, seeded.campaignIds, window),
      reach: await rawReach(ch, reachSample, window),
      serveCounts: await rawServeCounts(ch, seeded.tenancy.placements.map((placement) => placement.id), window),
      campaign: await timeSequential(RAW_REPETITIONS, 1, async () => void (await query('campaign'))),
      daily: await timeSequential(RAW_REPETITIONS, 1, async () => void (await query('daily'))),
    };
  });

  // Every breakdown sums to the raw events; the publisher and operator rows too, with the invalid impressions and serve counts.
  const mismatches: string[] = [];
  const expect = (what: string, actual: unknown, expected: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push(`${what}: ${JSON.stringify(actual)}, raw ${JSON.stringify(expected)}`);
  };
  for (const name of ['campaign', 'daily', 'line_item', 'creative', 'placement', 'country', 'hourly', 'operator']) {
    const sums = totals(answers.get(name)!);
    if (!sameTotals(sums, raw.totals, name === 'operator' ? ['impressions', 'clicks', 'spend_usd'] : undefined)) expect(`${name} totals`, sums, raw.totals);
  }
  for (const name of ['publisher placement', 'publisher daily', 'operator']) {
    const rows = answers.get(name)!;
    const sum = (field: string) => rows.reduce((total, row) => total + Number(row[field]), 0);
    expect(`${name} valid impressions and clicks`, [sum('impressions'), sum('clicks')], [raw.totals.impressions, raw.totals.clicks]);
    expect(`${name} invalid impressions`, sum('invalid_impressions'), raw.invalidImpressions);
    expect(`${name} requests and fills`, [sum('requests'), sum('filled')], [raw.serveCounts.requests, raw.serveCounts.filled]);
  }
  failures.push(...mismatches.map((mismatch) => `report totals differ from the raw events: ${mismatch}`));

  // Reach: campaign and line-item rows against an exact distinct count (line item i is campaign i's only one).
  const reachErrors: number[] = [];
  for (const name of ['campaign', 'line_item']) {
    for (const row of answers.get(name)!) {
      const exact = raw.reach.get(String(row.campaign_id));
      if (exact !== undefined) reachErrors.push(Math.abs(Number(row.unique_users) - exact) / exact);
    }
  }
  const worstReachError = Math.max(...reachErrors);
  if (reachErrors.length !== 2 * reachSample.length || !(worstReachError <= REACH_TOLERANCE)) {
    failures.push(`reach of ${reachErrors.length} sampled rows is off by up to ${(worstReachError * 100).toFixed(2)}% of the exact count (at most ${REACH_TOLERANCE * 100}%)`);
  }

  const withReach = new Set(['campaign', 'campaign page', 'line_item']);
  const latencyFigure = (report: TimedReport): Figure => {
    const latency = latencies.get(report.name)!;
    const baseline = report.name === 'campaign' ? raw.campaign : report.name === 'daily' ? raw.daily : undefined;
    return {
      figure: `${report.figure}: p50 / p95${!reachesToday && withReach.has(report.name) ? ' (no users of today merged: see the notes)' : ''}`,
      result: `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`,
      target: report.name === 'campaign' ? 'p95 < 150 ms (< 20 ms, issue 16)' : 'p95 < 150 ms',
      met: report.name === 'campaign' ? latency.p95 < 20 : latency.p95 < 150,
      ...(baseline ? { baseline: `${formatMs(baseline.p50)} / ${formatMs(baseline.p95)}`, ratio: ratio(baseline.p95, latency.p95) } : {}),
    };
  };
  const firstFigure = (name: string, what: string): Figure => ({
    figure: `${what}, first request (reach of the past days not yet kept)`,
    result: formatMs(firstMs.get(name)!),
  });
  const staleFigures = (report: TimedReport): Figure[] => {
    const { requests, others } = staleRuns.get(report.name)!;
    const latency = summarizeLatencies(requests.map((request) => request.ms));
    // The 15 longest windows: the requests this row timed before session 38 (a p95 of 15 is their slowest).
    const longest = summarizeLatencies(requests.filter((request) => request.days > DAYS - 1 - LONGEST_WINDOWS).map((request) => request.ms));
    const slowest = requests.reduce((worst, request) => (request.ms > worst.ms ? request : worst));
    const busiest = requests.reduce((most, request) => (request.others.cores > most.others.cores ? request : most));
    const cores = ({ cores, nicedCores }: OthersCpu) => `${cores.toFixed(2)} (${nicedCores.toFixed(2)} niced)`;
    return [
      {
        figure: `${report.figure}, every campaign with an impression since the last report (${STALE_REQUESTS} requests a second apart, each a window not kept yet, ${DAYS - STALE_REQUESTS} to ${DAYS - 1} days ending today: see the notes): p50 / p95`,
        result: `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`,
        target: 'p95 < 150 ms',
        met: latency.p95 < 150,
      },
      {
        figure: `${report.figure}, every campaign new: the slowest request; the ${LONGEST_WINDOWS} longest windows alone (${DAYS - LONGEST_WINDOWS} to ${DAYS - 1} days) p50 / p95; other processes' CPU in cores over the row and during its busiest request (see the notes)`,
        result: `${formatMs(slowest.ms)} (${slowest.days} days, others ${cores(slowest.others)}); ${formatMs(longest.p50)} / ${formatMs(longest.p95)}; others ${cores(others)}, busiest request ${cores(busiest.others)} (${formatMs(busiest.ms)})`,
      },
    ];
  };
  const figures: Figure[] = [
    ...timedReports.map(latencyFigure),
    ...(reachesToday ? staleReports.flatMap(staleFigures) : []),
    firstFigure('campaign', timedReports[0]!.figure),
    firstFigure('line_item', timedReports.find((report) => report.name === 'line_item')!.figure),
    {
      figure: 'every breakdown, publisher and operator report vs raw events (valid impressions, clicks, conversions; invalid impressions)',
      result: `${formatNumber(raw.totals.impressions)} / ${formatNumber(raw.totals.clicks)} / ${formatNumber(raw.totals.conversions)}; ${formatNumber(raw.invalidImpressions)}`,
      target: 'equal',
      met: mismatches.length === 0,
    },
    {
      figure: `reach (unique_users) of ${REACH_SAMPLE} campaigns and their line items vs exact distinct users`,
      result: `worst ${(worstReachError * 100).toFixed(2)}% off`,
      target: `within ${REACH_TOLERANCE * 100}%`,
      met: worstReachError <= REACH_TOLERANCE,
    },
  ];
  const notes = [
    `${formatNumber(seeded.events)} events (98.5% impressions, 1.4% clicks, 0.1% conversions; 10% invalid) for ${formatNumber(CAMPAIGNS)} campaigns (half tCPM, half CPC; one line item and creative each) of one organization, spread evenly over ${DAYS} UTC days up to ${isoDay(seeded.generatedMs ?? seeded.todayMs)}${seeded.addedEvents === undefined ? '' : `, and ${formatNumber(seeded.addedEvents)} more on the days after through ${isoDay(seeded.todayMs)} (--through-today: 1/${DAYS} of the events a day in ${ADDED_DAY_INSERTS} hourly inserts)`}; the window is ${window.from}..${window.to}${options.pastWindow ? ' (--past-window: it ends the day before the data\'s last day)' : ''}, ${PLACEMENTS} placements of one publisher, ${COUNTRIES} countries (one unknown) and one user per 20 events; generated in ${seeded.generationSeconds.toFixed(0)} s by INSERT ... SELECT FROM numbers() into events_v1 (the materialized views fill the rollups), campaigns by bulk SQL; serve counts (${formatNumber(raw.serveCounts.requests)} requests, ${formatNumber(raw.serveCounts.filled)} filled in the window) in 24 inserts per placement and day, as serving instances flush them.${keptDataDir ? ` Data kept in ${keptDataDir} (--keep-data).` : ''}`,
    `HTTP: ${requests} sequential requests per row after 5 warm-up requests: advertiser rows with a key of the organization, publisher rows with the publisher's token, the operator row with the admin token; the page-of-100 row walks offsets 0..900, the hourly row the first two pages of 1,000 hours. Before timing, each report was read once in full and its sums compared with the raw events; the first requests of the campaign and line_item breakdowns (reach states of the past days merged and kept in reach_windows_v1, and with today in the window the union with today's in reach_today_windows_v1, both emptied before the run) are given on their own rows.`,
    `Baseline: the same sums (valid events, the same window and campaign ids) straight over events_v1, in process with the service stopped, ${RAW_REPETITIONS} runs each after one warm-up. Ratio = raw p95 / report p95: above 1, the report over HTTP beats the raw query run in process.`,
    'The rollups were left as the inserts and background merges left them (no OPTIMIZE); since clickhouse/0011 the service merges each month of reach_blocks_v1 to one part once none of its parts was written for an hour, so on kept data (never written again) every month of it, the current one too, is one part after the first run (under live traffic the months still written keep several).',
  ];
  if (reachesToday) {
    notes.push(`Every campaign new since the last report: the bench cannot add events to the service's embedded store while it runs, so each of those ${STALE_REQUESTS} requests (no warm-up) asks for a window not kept yet, the bench's starting 1..${STALE_REQUESTS} days later (${DAYS - STALE_REQUESTS} to ${DAYS - 1} days, their lengths interleaved (the n-th request starts 1 + (${WINDOW_STRIDE}n mod ${STALE_REQUESTS}) days later): the same 1,000 campaigns, each with users today, their past days' kept state (one per campaign or line item, whatever the window's length) merged with today's blocks; the sums read fewer days in the shorter windows), whose past days were kept before the service started. The p95 is over all ${STALE_REQUESTS} (nearest rank: ${STALE_REQUESTS - Math.ceil(0.95 * STALE_REQUESTS)} requests slower than it); the next row gives the slowest request apart, and the ${LONGEST_WINDOWS} longest windows' p50 / p95, the figure of these rows before session 38 (${LONGEST_WINDOWS} requests: its p95 is their slowest). Other processes' CPU: the machine's busy time (/proc/stat) less the service's process (its embedded engines included) and the bench's own, in cores, over the row's ${STALE_REQUESTS} seconds and during each request, with the part of processes at a lower priority (nice above 0, their user and system time: such a process takes a core only when nothing else wants it, so it slows the service far less than the same load at normal priority): more than ~0.3 cores not niced means another process shared the 2 cores with the service. A report of the bench's window pays the same once each campaign has a new impression since the last one: the count check finds the kept row short, reach merges the past days' kept state with today's blocks, and the union is written after the answer (here before the next request: they are a second apart, untimed; \`node dist/bench/reachMicroBench.js\` times such reports back to back).`);
  }
  if (!reachesToday) {
    notes.push(`**The window ends ${window.to}, before today (${isoDay(Date.now())})**: every day of it is a past day, so the campaign and line_item reports read one kept reach state per row and merge no users of today; they measure less than on the day the data was generated. \`--through-today\` (on a copy of the directory) adds the days since, so the window ends today; \`node dist/bench/reachMicroBench.js <copy of the directory>\` times the reach of the same window in process with its last day as today.`);
  }
  if (profile) notes.push(`CPU profile of the service (top self time): ${profile}`);
  return { scenario: 'report', baselineName: 'raw events_v1 (p50 / p95)', figures, notes, failures };
}

/**
 * Requests of the rows where every campaign had an impression since the last report. Reports do not
 * write events, and the bench cannot write into the service's embedded store while it runs, so each
 * of these requests asks for a window the service has not kept yet: the bench's window starting 1,
 * 2, ... 45 days later (47 to 91 days, their lengths interleaved: the same campaigns, each with users today). Its past days are kept before the service
 * starts (what the first request of a window pays is another row), so each request costs what a
 * report of the bench's window costs once every campaign has a new impression: the count check
 * finds no kept row, reach goes the way it went before windows reaching today were kept, and the
 * union is written after the answer; the requests are a second apart, so that write is done before
 * the next (bench/reachMicroBench.ts times them back to back).
 */
const STALE_REQUESTS = 45;
/** The longest windows among them, those the bench timed before session 38 (77 to 91 days). */
const LONGEST_WINDOWS = 15;
/** Request n asks for the window starting 1 + (n * WINDOW_STRIDE mod STALE_REQUESTS) days later: every start once, lengths interleaved. */
const WINDOW_STRIDE = 16;

interface StaleRequest {
  ms: number;
  /** The window's length in days (47 to 91). */
  days: number;
  /** Other processes' CPU while it ran (othersBusy). */
  others: OthersCpu;
}

/** Other processes' CPU over some time, in cores: all of it, and the part at a lower priority (nice above 0). */
interface OthersCpu {
  cores: number;
  nicedCores: number;
}

/**
 * The machine's CPU time outside the service's process and the bench's own, from now: `since(earlier)`
 * gives it in cores over the time between. /proc/stat counts every core's busy ticks (user, nice,
 * system, irq, softirq, steal), the service's /proc/<pid>/stat every thread of it (chdb's and
 * PGlite's too), process.cpuUsage() the bench's. The niced part is the processes running at a
 * lower priority (nice above 0, as /proc/<pid>/stat gives their main thread), user and system time,
 * of those alive at both ends: such a process takes a core only when nothing else wants it
 * (/proc/stat's own nice column leaves out their system time). Ticks are 10 ms, so a single
 * request's figure is rough (±0.1-0.2 cores at 100 ms).
 */
function othersBusy(servicePid: number) {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  const own = process.cpuUsage();
  const micros = (user + nice + system + irq + softirq + steal - cpuTicks(servicePid).all) * MICROS_PER_TICK - own.user - own.system;
  const niced = nicedTicks(servicePid);
  const atMs = performance.now();
  return {
    atMs,
    micros,
    niced,
    since: (earlier: { atMs: number; micros: number; niced: Map<number, number> }): OthersCpu => {
      let ticks = 0;
      for (const [pid, now] of niced) {
        const then = earlier.niced.get(pid);
        if (then !== undefined) ticks += now - then;
      }
      const elapsedMs = atMs - earlier.atMs;
      return { cores: (micros - earlier.micros) / 1000 / elapsedMs, nicedCores: (ticks * MICROS_PER_TICK) / 1000 / elapsedMs };
    },
  };
}

/** utime + stime per process whose main thread runs at nice above 0, the service's aside. */
function nicedTicks(servicePid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === servicePid || pid === process.pid) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[16]) > 0) ticks.set(pid, Number(fields[11]) + Number(fields[12]));
  }
  return ticks;
}

function laterFrom(from: string, request: number): string {
  return isoDay(Date.parse(`${from}T00:00:00Z`) + (request + 1) * DAY_MS);
}

/** Keeps the past days of the STALE_REQUESTS shorter windows, at both levels, when the data's window reaches today. */
async function withEarlierWindowsKept(ch: ClickHouse, seed: ReportSeed): Promise<ReportSeed> {
  if (seed.todayMs !== midnightUtc(Date.now())) return seed;
  const from = isoDay(seed.todayMs - (DAYS - 1) * DAY_MS);
  const pastTo = isoDay(seed.todayMs - DAY_MS);
  progress(`keeping the past days of ${STALE_REQUESTS} shorter windows`);
  for (let request = 0; request < STALE_REQUESTS; request++) {
    for (const level of ['campaign', 'line_item'] as const) await keptWindowReach(ch, level, seed.campaignIds, laterFrom(from, request), pastTo);
  }
  return seed;
}

/** Hourly inserts a day --through-today adds: under live traffic today's blocks are written by many inserts, not one. */
const ADDED_DAY_INSERTS = 24;

/**
 * --through-today: the days after the kept data's last one, up to today, added to it as a day of
 * the generation would have been (1/92 of its events a day, drawn from the same users, campaigns
 * and placements, in hourly INSERT ... SELECTs into events_v1, so the views fill the rollups and
 * reach blocks as live traffic does; and the day's serve counts). The seed written back names today
 * as the window's last day, so the report merges the users of today, as it does on the day of a
 * generation. Writes into the directory: run it on a copy.
 */
async function addDaysThroughToday(db: Postgres, ch: ClickHouse, seed: ReportSeed, directory: string): Promise<ReportSeed> {
  const todayMs = midnightUtc(Date.now());
  const days = Math.round((todayMs - seed.todayMs) / DAY_MS);
  if (days <= 0) return seed;
  const started = performance.now();
  const lineItems = await db.query<{ campaign_id: string; id: string }>('SELECT campaign_id, id FROM line_items WHERE campaign_id = ANY($1::uuid[])', [seed.campaignIds]);
  const lineItemOf = new Map(lineItems.rows.map((row) => [row.campaign_id, row.id]));
  const generated = {
    campaignIds: seed.campaignIds,
    lineItemIds: seed.campaignIds.map((id) => lineItemOf.get(id)!),
    publisher: { id: seed.tenancy.publisherId, placementIds: seed.tenancy.placements.map((placement) => placement.id) },
  };
  const eventsPerInsert = Math.round(seed.events / DAYS / ADDED_DAY_INSERTS);
  let addedEvents = seed.addedEvents ?? 0;
  progress(`adding ${days} day(s) of ${formatNumber(eventsPerInsert * ADDED_DAY_INSERTS)} events through ${isoDay(todayMs)} to the kept data`);
  for (let day = 1; day <= days; day++) {
    for (let hour = 0; hour < ADDED_DAY_INSERTS; hour++) {
      const span = { startMs: seed.todayMs + day * DAY_MS + (hour * DAY_MS) / ADDED_DAY_INSERTS, spanMs: DAY_MS / ADDED_DAY_INSERTS, firstRow: seed.events + addedEvents, users: usersOf(seed.events) };
      await generateEventSpan(ch, { ...generated, events: eventsPerInsert, todayMs }, span);
      addedEvents += eventsPerInsert;
    }
  }
  const serveCounts = await generateServeCounts(ch, generated.publisher.placementIds, todayMs, days);
  const extended: ReportSeed = {
    ...seed,
    todayMs,
    generatedMs: seed.generatedMs ?? seed.todayMs,
    addedEvents,
    serveCounts,
  };
  writeFileSync(path.join(directory, SEED_FILE), JSON.stringify(extended));
  progress(`added ${formatNumber(addedEvents - (seed.addedEvents ?? 0))} events in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return extended;
}

function midnightUtc(ms: number): number {
  return ms - (ms % DAY_MS);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The seed of an earlier run kept in `directory` with the same number of events; undefined for an empty directory. */
function keptSeed(directory: string, events: number): ReportSeed | undefined {
  const file = path.join(directory, SEED_FILE);
  if (!existsSync(file)) {
    if (readdirSync(directory).length > 0) throw new Error(`--keep-data ${directory} is not empty and holds no ${SEED_FILE}: name an empty or new directory`);
    return undefined;
  }
  const seed = JSON.parse(readFileSync(file, 'utf8')) as ReportSeed;
  if (seed.events !== events) throw new Error(`--keep-data ${directory} holds ${formatNumber(seed.events)} events, not ${formatNumber(events)}: pass --events ${seed.events} or another directory`);
  return seed;
}
