import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { campaignReport } from '../src/reporting/campaignReport.js';
import { deletedCampaignsWithEvents } from '../src/reporting/deletedCampaigns.js';
import { organizationCampaignPage, organizationCampaigns } from '../src/reporting/reportCampaigns.js';
import { reachOver } from '../src/reporting/reachBlocks.js';
import { KeptReachWrites } from '../src/reporting/keptReachWrites.js';
import { KeptCampaignFigures } from '../src/reporting/keptCampaignFigures.js';
import { CampaignAttributes } from '../src/reporting/campaignAttributes.js';
import { rollupSums } from '../src/reporting/rollupSums.js';
import { addDays } from '../src/utcDays.js';
import type { ReportRequest } from '../src/reporting/reportRequest.js';
import { withStores } from './benchStores.js';
import { DAYS } from './eventGenerator.js';
import { timeSequential } from './latencyStats.js';
import { formatMs } from './scenarioReport.js';
import { SEED_FILE, type ReportSeed } from './scenarios/reportScenario.js';

/**
 * In-process cost of the report bench's 1,000-row campaign breakdown, repeated (its figures kept,
 * keptCampaignFigures.ts) and cold (nothing kept), and of each of its steps: the
 * Postgres page, the ClickHouse sums, reach, and the JSON of the answer. The window is the bench's
 * with `--past-window`: 92 days ending the day before the data's last, so every day is past and
 * reach reads the kept states whatever day this runs. With a second build's dist directory, its
 * campaignReport is timed too, in alternating rounds on the same stores (a side by side that the
 * machine's load moves equally). Run it on a copy of a `report --full --keep-data` directory
 * (opening it migrates its stores, and the first call keeps the window's reach states).
 * Usage: npm run build && node dist/bench/reportMicroBench.js <copy of the directory> [requests] [other dist directory]
 */
const [directory, requestsArgument, otherDist] = process.argv.slice(2);
if (!directory) throw new Error('usage: node dist/bench/reportMicroBench.js <copy of a report --keep-data directory> [requests] [other dist directory]');
const requests = Number(requestsArgument ?? 30);
const dataDir = path.resolve(directory);
const seed = JSON.parse(readFileSync(path.join(dataDir, SEED_FILE), 'utf8')) as ReportSeed;
const dateTo = addDays(new Date(seed.todayMs).toISOString().slice(0, 10), -1);
const dateFrom = addDays(dateTo, -(DAYS - 1));
const ids = seed.campaignIds;
const request: ReportRequest = { organizationId: seed.tenancy.organizationId, campaignIds: null, dateFrom, dateTo, limit: 1000, offset: 0 };
type Report = typeof campaignReport;
const other = otherDist ? ((await import(path.resolve(otherDist, 'src/reporting/campaignReport.js'))) as { campaignReport: Report }).campaignReport : undefined;

await withStores(dataDir, async (engines) => {
  // The window is past (every day before the data's last): reach reads kept figures, writes nothing today's.
  const reachWrites = new KeptReachWrites(engines.ch, pino({ level: 'warn' }), { inc: () => undefined });
  // Kept between calls, as the route keeps them: every call after the first is a repeat.
  const stores = { ...engines, reachWrites, campaignAttributes: new CampaignAttributes(engines.db), campaignFigures: new KeptCampaignFigures() };
  const rows: Array<[string, string]> = [];
  const timed = async (name: string, fn: () => Promise<unknown>) => {
    const latency = await timeSequential(requests, 3, async () => void (await fn()));
    rows.push([`${name}: p50 / p95`, `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`]);
  };
  const wholeReport = async (report: Report, on = stores) => {
    const data = [];
    for await (const batch of report(on, request)) data.push(...batch);
    return data;
  };
  const data = await wholeReport(campaignReport);
  if (other && JSON.stringify(await wholeReport(other)) !== JSON.stringify(data)) throw new Error(`${otherDist} answers other rows`);
  for (let round = 1; round <= 3; round++) {
    await timed(`round ${round}: whole breakdown, a repeat (campaignReport, figures kept)`, () => wholeReport(campaignReport));
    await timed(`round ${round}: whole breakdown, cold (campaignReport, nothing kept)`, () =>
      wholeReport(campaignReport, { ...stores, campaignAttributes: new CampaignAttributes(engines.db), campaignFigures: new KeptCampaignFigures() }),
    );
    if (other) await timed(`round ${round}: whole breakdown of ${otherDist}`, () => wholeReport(other));
  }
  await timed('deleted campaigns shown (deletedCampaignsWithEvents)', () => deletedCampaignsWithEvents(stores, request));
  await timed('Postgres page of 1,000 campaigns (organizationCampaigns, one query)', () =>
    organizationCampaigns(stores.db, request.organizationId, null, { limit: 1000, offset: 0 }, []),
  );
  await timed('Postgres page of 1,000 campaigns, attributes remembered (organizationCampaignPage)', () =>
    organizationCampaignPage(stores.db, stores.campaignAttributes, request.organizationId, null, { limit: 1000, offset: 0 }, []),
  );
  await timed('ClickHouse sums (rollupSums)', () => rollupSums(stores.ch, 'campaign_id', ids, dateFrom, dateTo));
  await timed('reach (reachOver)', () => reachOver(stores, ids, dateFrom, dateTo, false));
  await timed('JSON of the answer (JSON.stringify)', async () => JSON.stringify({ data, pagination: { limit: 1000, offset: 0, total: data.length, has_more: true } }));
  console.log(`campaign breakdown in process: ${ids.length} campaigns, window ${dateFrom}..${dateTo}, every day past (${dataDir}, ${requests} calls each after 3 warm-up)\n`);
  console.log('| figure | result |\n|---|---|');
  for (const [figure, result] of rows) console.log(`| ${figure} | ${result} |`);
});
