import type { BenchOptions } from '../benchOptions.js';
import { withStores } from '../benchStores.js';
import { generateCatalog, generateServeRequests } from '../catalogGenerator.js';
import { combineRounds, loadFailures, runLoad, type LoadResult } from '../loadTest.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { prepareService, type ServiceUnderTest } from '../serviceUnderTest.js';

const PLACEMENTS = 40;
const CERTIFIED_PLACEMENTS = 20;
const DISTINCT_REQUESTS = 500;
const WARMUP_SECONDS = 3;
/** Rounds per service, in the order A B B A A B ...: neither always runs first. */
const ROUNDS = 4;
/** Issue 15: counting may cost the serve path at most this share of its throughput. */
const MAX_COST = 0.05;

/**
 * What counting serve requests and fills per placement (src/serving/serveCounts.ts) costs the serve
 * path: the serve scenario's catalog and requests on two services, one counting (the default) and
 * one started with SERVE_COUNTS=false, both up all along and loaded in alternating rounds; then the
 * counting one's stored counts are checked against the serves it answered.
 */
export async function serveCountsScenario(options: BenchOptions): Promise<ScenarioReport> {
  if (options.url) throw new Error('serve-counts starts two services of its own (one with SERVE_COUNTS=false): run it without --url');
  const lineItems = options.lineItems ?? 10_000;
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const failures: string[] = [];
  const seeders = {
    stores: async ({ db }: { db: Parameters<typeof seedTenancy>[0] }): Promise<BenchTenancy> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
      const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((placement) => placement.id) });
      await seedCatalog(db, tenancy.userId, catalog, 'active');
      return tenancy;
    },
  };
  const counting = await prepareService('serve-counts', options, seeders);
  const notCounting = await prepareService('serve-counts-off', options, seeders, { env: { SERVE_COUNTS: 'false' } });
  const load = (service: ServiceUnderTest<BenchTenancy>, seconds: number) =>
    runLoad({
      baseUrl: service.baseUrl,
      connections,
      durationSeconds: seconds,
      expectedStatuses: [200],
      requests: generateServeRequests(DISTINCT_REQUESTS, service.seeded.placements.map((placement) => placement.id)).map((body) => ({
        method: 'POST' as const,
        path: '/v1/serve',
        headers: { authorization: `Bearer ${service.seeded.publisherToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })),
    });
  const on: LoadResult[] = [];
  const off: LoadResult[] = [];
  let answeredWhileCounting = 0;
  try {
    answeredWhileCounting += (await load(counting, WARMUP_SECONDS)).responses;
    await load(notCounting, WARMUP_SECONDS);
    progress(`${ROUNDS} rounds of ${(durationSeconds / ROUNDS).toFixed(1)} s on each service, alternating`);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [counting, notCounting] : [notCounting, counting];
      for (const service of order) {
        const result = await load(service, durationSeconds / ROUNDS);
        if (service === counting) {
          on.push(result);
          answeredWhileCounting += result.responses;
        } else off.push(result);
      }
    }
  } finally {
    failures.push(...(await counting.stop()), ...(await notCounting.stop()));
  }
  const withCounts = combineRounds(on);
  const without = combineRounds(off);
  failures.push(...loadFailures('service counting serves', withCounts), ...loadFailures('service not counting', without));

  // The service flushes its counts on SIGTERM: every serve it answered is counted (a request cut
  // off when a timed run ended may be counted without having been read).
  const stored = await withStores(counting.dataDir!, async ({ ch }) => {
    const result = await ch.client.query({
      query: 'SELECT toString(sum(requests)) AS requests FROM placement_serve_counts_v1 WHERE placement_id IN {placement_ids:Array(String)}',
      query_params: { placement_ids: counting.seeded.placements.map((placement) => placement.id) },
      format: 'JSONEachRow',
    });
    return Number((await result.json<{ requests: string }>())[0]!.requests);
  });
  if (stored < answeredWhileCounting) failures.push(`${formatNumber(answeredWhileCounting)} serves answered but only ${formatNumber(stored)} counted`);

  const cost = 1 - withCounts.requestsPerSecond / without.requestsPerSecond;
  const figures: Figure[] = [
    {
      figure: 'serve throughput, counting / not counting (SERVE_COUNTS=false)',
      result: `${formatNumber(withCounts.requestsPerSecond)} / ${formatNumber(without.requestsPerSecond)} req/s`,
    },
    {
      figure: 'throughput cost of counting',
      result: `${(cost * 100).toFixed(1)}%`,
      target: `<= ${MAX_COST * 100}%`,
      met: cost <= MAX_COST,
    },
    {
      figure: 'latency p50 / p99, counting / not counting',
      result: `${formatMs(withCounts.latency.p50)} / ${formatMs(withCounts.latency.p99)}; ${formatMs(without.latency.p50)} / ${formatMs(without.latency.p99)}`,
    },
    {
      figure: 'serves answered / counted in placement_serve_counts_v1',
      result: `${formatNumber(answeredWhileCounting)} / ${formatNumber(stored)}`,
      target: 'every answered serve counted',
      met: stored >= answeredWhileCounting,
    },
  ];
  const notes = [
    `${formatNumber(lineItems)} active line items (the serve scenario's catalog) on each of two services with the same kind of data, ${PLACEMENTS} placements each; one counts serves (the default), the other runs with SERVE_COUNTS=false.`,
    `Load: autocannon, ${connections} keep-alive connections, ${durationSeconds} s on each service in ${ROUNDS} rounds, alternating A B B A ... after a ${WARMUP_SECONDS} s warm-up of each, cycling ${DISTINCT_REQUESTS} distinct bodies. Rounds, req/s: counting ${withCounts.rounds.map((rps) => formatNumber(rps)).join(', ')}; not counting ${without.rounds.map((rps) => formatNumber(rps)).join(', ')}.`,
    'Counted: sum of requests in placement_serve_counts_v1 after a SIGTERM stop (the service flushes its counts), read from the counting service\'s DATA_DIR; answered includes the warm-up.',
  ];
  return { scenario: 'serve-counts', figures, notes, failures };
}
