import type { ClickHouse } from '../../src/store/clickhouse.js';
import type { BenchOptions } from '../benchOptions.js';
import { withStores } from '../benchStores.js';
import { generateCatalog } from '../catalogGenerator.js';
import { DAY_MS, DAYS, generateEvents } from '../eventGenerator.js';
import { requestJson } from '../httpJson.js';
import { timeSequential, type LatencySummary } from '../latencyStats.js';
import { formatMs, formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { prepareService } from '../serviceUnderTest.js';
import { progress } from '../progress.js';

const CAMPAIGNS = 1_000;
const RAW_REPETITIONS = 10;
const PLACEMENTS = 40;
/** The further breakdowns (issue 15), each timed over the 92-day window like campaign and daily. */
const BREAKDOWNS = ['line_item', 'creative', 'placement', 'country', 'hourly'] as const;

interface ReportSeed {
  tenancy: BenchTenancy;
  campaignIds: string[];
  generationSeconds: number;
}

interface CampaignRowTotals {
  impressions: number;
  clicks: number;
  conversions: number;
  spend_usd: number;
}

/**
 * 1,000 campaigns of one organization and N events over the last 92 days (UTC), generated inside
 * ClickHouse with INSERT ... SELECT FROM numbers() into events_v1, so the materialized views fill
 * the rollups exactly as live traffic would; then the 92-day campaign and daily breakdowns over
 * HTTP, and the same aggregation straight over the raw events for the ratio.
 */
export async function reportScenario(options: BenchOptions): Promise<ScenarioReport> {
  if (options.url) throw new Error('report writes its events straight into ClickHouse: run it without --url (DATABASE_URL/CLICKHOUSE_URL select servers)');
  const events = options.events ?? (options.full ? 100_000_000 : 5_000_000);
  const requests = options.full ? 100 : 50;
  const failures: string[] = [];
  const today = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z').getTime();
  const window = { from: isoDay(today - (DAYS - 1) * DAY_MS), to: isoDay(today) };

  const service = await prepareService('report', options, {
    stores: async ({ db, ch }): Promise<ReportSeed> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, 0);
      const catalog = generateCatalog({ lineItems: CAMPAIGNS, lineItemsPerCampaign: 1, placements: [] });
      await seedCatalog(db, tenancy.userId, catalog, 'active');
      const started = performance.now();
      progress(`generating ${formatNumber(events)} events in ClickHouse`);
      await generateEvents(ch, {
        campaignIds: catalog.map((campaign) => campaign.id),
        lineItemIds: catalog.map((campaign) => campaign.lineItems[0]!.id),
        events,
        todayMs: today,
        publisher: { id: tenancy.publisherId, placementIds: tenancy.placements.map((placement) => placement.id) },
      });
      return { tenancy, campaignIds: catalog.map((campaign) => campaign.id), generationSeconds: (performance.now() - started) / 1000 };
    },
  });
  const { seeded } = service;
  const headers = { 'x-api-key': seeded.tenancy.apiKey };
  const base = `${service.baseUrl}/v1/advertiser/reporting/campaigns?date_from=${window.from}&date_to=${window.to}`;
  let campaignHttp: LatencySummary;
  let pageHttp: LatencySummary;
  let dailyHttp: LatencySummary;
  let httpTotals: CampaignRowTotals | undefined;
  const breakdownHttp = new Map<string, LatencySummary>();
  let publisherHttp: LatencySummary;
  let publisherDailyHttp: LatencySummary;
  try {
    const fetchReport = async (url: string, expectedRows: number) => {
      const answer = await requestJson<{ data: CampaignRowTotals[] }>('GET', url, { headers });
      if (answer.status !== 200) throw new Error(`GET ${url} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      if (answer.body.data.length !== expectedRows) throw new Error(`GET ${url} returned ${answer.body.data.length} rows, expected ${expectedRows}`);
      return answer.body.data;
    };
    progress(`timing ${requests} requests per breakdown`);
    httpTotals = totals(await fetchReport(`${base}&breakdown=campaign&limit=1000`, CAMPAIGNS));
    campaignHttp = await timeSequential(requests, 5, async () => void (await fetchReport(`${base}&breakdown=campaign&limit=1000`, CAMPAIGNS)));
    pageHttp = await timeSequential(requests, 5, async (index) => void (await fetchReport(`${base}&breakdown=campaign&limit=100&offset=${(index % 10) * 100}`, 100)));
    dailyHttp = await timeSequential(requests, 5, async () => void (await fetchReport(`${base}&breakdown=daily&limit=100`, DAYS)));
    const fetchRows = async (url: string, requestHeaders: Record<string, string>) => {
      const answer = await requestJson<{ data: unknown[] }>('GET', url, { headers: requestHeaders });
      if (answer.status !== 200 || answer.body.data.length === 0) throw new Error(`GET ${url} answered ${answer.status} with ${answer.body.data?.length} rows`);
    };
    for (const breakdown of BREAKDOWNS) {
      breakdownHttp.set(breakdown, await timeSequential(requests, 5, async () => void (await fetchRows(`${base}&breakdown=${breakdown}&limit=1000`, headers))));
    }
    const publisherBase = `${service.baseUrl}/v1/publisher/reporting?date_from=${window.from}&date_to=${window.to}`;
    const publisherHeaders = { authorization: `Bearer ${seeded.tenancy.publisherToken}` };
    publisherHttp = await timeSequential(requests, 5, async () => void (await fetchRows(`${publisherBase}&breakdown=placement`, publisherHeaders)));
    publisherDailyHttp = await timeSequential(requests, 5, async () => void (await fetchRows(`${publisherBase}&breakdown=daily`, publisherHeaders)));
  } catch (error) {
    failures.push((error as Error).message);
    await service.stop();
    return { scenario: 'report', figures: [], notes: [], failures };
  }
  failures.push(...(await service.stop()));
  const profile = service.profileSummary();

  progress('timing the same sums over the raw events');
  const raw = await withStores(service.dataDir!, async ({ ch }) => {
    const query = (grouping: 'campaign' | 'daily') => rawAggregation(ch, grouping, seeded.campaignIds, window);
    const rawTotals = await query('campaign');
    return {
      totals: rawTotals,
      campaign: await timeSequential(RAW_REPETITIONS, 1, async () => void (await query('campaign'))),
      daily: await timeSequential(RAW_REPETITIONS, 1, async () => void (await query('daily'))),
    };
  });
  if (httpTotals && JSON.stringify(roundTotals(httpTotals)) !== JSON.stringify(roundTotals(raw.totals))) {
    failures.push(`the report's totals ${JSON.stringify(httpTotals)} differ from the raw events' ${JSON.stringify(raw.totals)}`);
  }

  const figures: Figure[] = [
    {
      figure: `92-day campaign breakdown, ${formatNumber(CAMPAIGNS)} rows (limit=1000): p50 / p95`,
      result: `${formatMs(campaignHttp.p50)} / ${formatMs(campaignHttp.p95)}`,
      target: 'p95 < 150 ms',
      met: campaignHttp.p95 < 150,
      baseline: `${formatMs(raw.campaign.p50)} / ${formatMs(raw.campaign.p95)}`,
      ratio: ratio(raw.campaign.p95, campaignHttp.p95),
    },
    {
      figure: '92-day campaign breakdown, one page of 100: p50 / p95',
      result: `${formatMs(pageHttp.p50)} / ${formatMs(pageHttp.p95)}`,
      target: 'p95 < 150 ms',
      met: pageHttp.p95 < 150,
    },
    {
      figure: `92-day daily breakdown, ${DAYS} rows: p50 / p95`,
      result: `${formatMs(dailyHttp.p50)} / ${formatMs(dailyHttp.p95)}`,
      target: 'p95 < 150 ms',
      met: dailyHttp.p95 < 150,
      baseline: `${formatMs(raw.daily.p50)} / ${formatMs(raw.daily.p95)}`,
      ratio: ratio(raw.daily.p95, dailyHttp.p95),
    },
    ...BREAKDOWNS.map((breakdown) => {
      const latency = breakdownHttp.get(breakdown)!;
      return {
        figure: `92-day ${breakdown} breakdown (limit=1000): p50 / p95`,
        result: `${formatMs(latency.p50)} / ${formatMs(latency.p95)}`,
        target: 'p95 < 150 ms',
        met: latency.p95 < 150,
      };
    }),
    {
      figure: `92-day publisher report, ${PLACEMENTS} placements: p50 / p95`,
      result: `${formatMs(publisherHttp.p50)} / ${formatMs(publisherHttp.p95)}`,
      target: 'p95 < 150 ms',
      met: publisherHttp.p95 < 150,
    },
    {
      figure: `92-day publisher report, ${DAYS} days: p50 / p95`,
      result: `${formatMs(publisherDailyHttp.p50)} / ${formatMs(publisherDailyHttp.p95)}`,
      target: 'p95 < 150 ms',
      met: publisherDailyHttp.p95 < 150,
    },
    {
      figure: 'report totals vs raw events (valid impressions, clicks, conversions)',
      result: `${formatNumber(raw.totals.impressions)} / ${formatNumber(raw.totals.clicks)} / ${formatNumber(raw.totals.conversions)}`,
      target: 'equal',
      met: !failures.some((failure) => failure.startsWith("the report's totals")),
    },
  ];
  const notes = [
    `${formatNumber(events)} events (98.5% impressions, 1.4% clicks, 0.1% conversions; 10% invalid) for ${formatNumber(CAMPAIGNS)} campaigns (half tCPM, half CPC) of one organization, spread evenly over ${DAYS} UTC days ${window.from}..${window.to}, ${PLACEMENTS} placements of one publisher, 11 countries (one unknown) and one user per 20 events; generated in ${seeded.generationSeconds.toFixed(0)} s by INSERT ... SELECT FROM numbers() into events_v1 (the materialized views fill the rollups), campaigns by bulk SQL.`,
    `HTTP: ${requests} sequential requests per row after 5 warm-up requests, with a key of the organization; the page-of-100 row walks offsets 0..900.`,
    `Baseline: the same sums (valid events, the same window and campaign ids) straight over events_v1, in process with the service stopped, ${RAW_REPETITIONS} runs each after one warm-up. Ratio = raw p95 / report p95: above 1, the report over HTTP beats the raw query run in process.`,
    'The rollups were left as the inserts and background merges left them (no OPTIMIZE).',
  ];
  if (profile) notes.push(`CPU profile of the service (top self time): ${profile}`);
  return { scenario: 'report', baselineName: 'raw events_v1 (p50 / p95)', figures, notes, failures };
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The report's sums computed from every raw event instead of the rollup. */
async function rawAggregation(
  ch: ClickHouse,
  grouping: 'campaign' | 'daily',
  campaignIds: string[],
  window: { from: string; to: string },
): Promise<CampaignRowTotals> {
  const key = grouping === 'campaign' ? 'campaign_id' : 'toDate(event_time)';
  const result = await ch.client.query({
    query: `
      SELECT ${key} AS group_key,
             toUInt64(countIf(type = 'impression')) AS impressions,
             toUInt64(countIf(type = 'click')) AS clicks,
             toUInt64(countIf(type = 'conversion')) AS conversions,
             toFloat64(sum(cost_nanos)) / 1e9 AS spend_usd
      FROM events_v1
      WHERE ivt = '' AND campaign_id IN {campaign_ids:Array(UUID)}
        AND event_time >= toDateTime64({from:String}, 3, 'UTC')
        AND event_time < toDateTime64({to:String}, 3, 'UTC') + INTERVAL 1 DAY
      GROUP BY group_key`,
    query_params: { campaign_ids: campaignIds, from: window.from, to: window.to },
    format: 'JSONEachRow',
  });
  return totals(await result.json<CampaignRowTotals>());
}

function totals(rows: readonly CampaignRowTotals[]): CampaignRowTotals {
  return rows.reduce(
    (sum, row) => ({
      impressions: sum.impressions + Number(row.impressions),
      clicks: sum.clicks + Number(row.clicks),
      conversions: sum.conversions + Number(row.conversions),
      spend_usd: sum.spend_usd + Number(row.spend_usd),
    }),
    { impressions: 0, clicks: 0, conversions: 0, spend_usd: 0 },
  );
}

function roundTotals(sums: CampaignRowTotals) {
  return { ...sums, spend_usd: Math.round(sums.spend_usd * 100) / 100 };
}
