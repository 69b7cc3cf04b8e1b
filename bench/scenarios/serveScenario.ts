import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Postgres } from '../../src/store/postgres.js';
import type { BenchOptions } from '../benchOptions.js';
import { generateCatalog, generateServeRequests, type ServeRequestBody } from '../catalogGenerator.js';
import { requestJson } from '../httpJson.js';
import { alternateRounds, loadFailures, runLoad, type LoadResult } from '../loadTest.js';
import { coresNotes, cpuPerAnswer, quietRatio, roundRecorder } from '../measuredRounds.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancyOverHttp, seedCatalogOverHttp } from '../seedOverHttp.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { prepareService } from '../serviceUnderTest.js';
import { requestHeapReport, startService, startStub, temporaryDataDir, type RunningService } from '../serviceProcess.js';
import { withStores } from '../benchStores.js';
import { timeChangeVisibility } from '../changeVisibility.js';
import type { IndexHeapReport } from '../indexHeapProbe.js';
import { packageRoot } from '../../src/packageRoot.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { optedIn } from './serveSemanticScenario.js';

const PLACEMENTS = 40;
const CERTIFIED_PLACEMENTS = 20;
/** Distinct request bodies each connection cycles through. */
const DISTINCT_REQUESTS = 500;
const WARMUP_SECONDS = 3;
/**
 * The measured time is split into this many rounds on each, alternating service, stub, stub,
 * service, ... (each first as often as second).
 */
const ROUNDS = 4;
const HEAP_TARGET_BYTES = 300 * 2 ** 20;
const execFileAsync = promisify(execFile);

interface ServeAnswer {
  ad: null | { format: string; render: Record<string, unknown>; tracking: { impression_url: string; click_url: string } };
}

/**
 * POST /v1/serve with N active line items (keyword and placement targeting, creatives, mixed bid
 * types) for chat-style query/response texts on certified and uncertified placements; then the same
 * load on a fastify stub that answers a fixed ad; then the heap of a service holding 100,000 line items.
 */
export async function serveScenario(options: BenchOptions): Promise<ScenarioReport> {
  const lineItems = options.lineItems ?? 10_000;
  const heapLineItems = options.full ? 100_000 : 20_000;
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const failures: string[] = [];
  const notes: string[] = [];

  const service = await prepareService('serve', options, catalogSeeders(lineItems));
  const { seeded } = service;
  const bodies = generateServeRequests(DISTINCT_REQUESTS, seeded.placements.map((placement) => placement.id));
  const auth = { authorization: `Bearer ${seeded.publisherToken}` };
  const requests = bodies.map((body) => ({
    method: 'POST' as const,
    path: '/v1/serve',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }));
  const stub = await startStub('serve');
  let real: LoadResult;
  let stubbed: LoadResult;
  let fill: FillSample;
  // Which process used the cores in each round: the service, the stub, this process (the load
  // generator), anything else on the machine.
  const pids: Record<string, number> = { stub: stub.child.pid! };
  if (service.pid) pids.service = service.pid;
  const rounds = roundRecorder(pids, service.pid);
  try {
    progress('sampling the fill rate');
    // A service we started links to itself; one at --url links to whatever its TRACKING_BASE_URL says.
    fill = await sampleFill(service.baseUrl, options.url ? undefined : service.baseUrl, auth, bodies, seeded);
    failures.push(...fill.problems);
    const load = (baseUrl: string, seconds: number) => runLoad({ baseUrl, connections, durationSeconds: seconds, requests, expectedStatuses: [200] });
    await load(service.baseUrl, WARMUP_SECONDS);
    await load(stub.baseUrl, WARMUP_SECONDS);
    progress(`serving: ${ROUNDS} rounds of ${(durationSeconds / ROUNDS).toFixed(1)} s on the service and on the stub, alternating`);
    ({ service: real, stub: stubbed } = await alternateRounds(
      ROUNDS,
      () => rounds.service(() => load(service.baseUrl, durationSeconds / ROUNDS)),
      () => rounds.stub(() => load(stub.baseUrl, durationSeconds / ROUNDS)),
      { balanced: true },
    ));
  } finally {
    failures.push(...(await service.stop()));
    await stub.stop();
  }
  // The service's samples in its load rounds only, as track does: the rest is start, stub rounds and idle time.
  const profile = service.profileSummary(real.windows);
  failures.push(...loadFailures('service', real));

  if (!options.url) progress(`heap with ${formatNumber(heapLineItems)} line items`);
  const heap = options.url ? undefined : await measureHeap(heapLineItems, options.semanticShare);
  if (heap?.problem) failures.push(heap.problem);

  const figures: Figure[] = [
    {
      figure: 'throughput',
      result: `${formatNumber(real.requestsPerSecond)} req/s`,
      target: '>= 10,000 req/s',
      met: real.requestsPerSecond >= 10_000,
      baseline: `${formatNumber(stubbed.requestsPerSecond)} req/s`,
      ratio: ratio(real.requestsPerSecond, stubbed.requestsPerSecond),
    },
    quietRatio('throughput', rounds.serviceRounds, rounds.stubRounds),
    {
      figure: 'CPU a serve: all threads, main thread (load generator)',
      result: cpuPerAnswer(rounds.serviceRounds, rounds.stubRounds, 'service', rounds.settleTicks),
      baseline: cpuPerAnswer(rounds.stubRounds, rounds.serviceRounds, 'stub'),
    },
    { figure: 'latency p50', result: formatMs(real.latency.p50), baseline: formatMs(stubbed.latency.p50) },
    { figure: 'latency p90', result: formatMs(real.latency.p90), baseline: formatMs(stubbed.latency.p90) },
    {
      figure: 'latency p99',
      result: formatMs(real.latency.p99),
      target: '< 10 ms',
      met: real.latency.p99 < 10,
      baseline: formatMs(stubbed.latency.p99),
      ratio: ratio(real.latency.p99, stubbed.latency.p99),
    },
    {
      figure: 'errors (non-200, connection errors)',
      result: formatNumber(real.unexpected + real.errors),
      target: '0',
      met: real.unexpected + real.errors === 0,
      baseline: formatNumber(stubbed.unexpected + stubbed.errors),
    },
    {
      figure: `fill rate (${fill.sampled} sampled requests)`,
      result: `${(fill.rate * 100).toFixed(1)}%`,
      baseline: '100% (fixed ad)',
    },
    { figure: 'fill rate, certified placements', result: `${(fill.certifiedRate * 100).toFixed(1)}%` },
    { figure: 'fill rate, uncertified placements (CPC/CPA only)', result: `${(fill.uncertifiedRate * 100).toFixed(1)}%` },
  ];
  if (heap) {
    figures.push({
      figure: `heap used with ${formatNumber(heapLineItems)} line items (after GC)`,
      result: heap.method
        ? `${(heap.heapUsed / 2 ** 20).toFixed(0)} MB (${heap.method})`
        : `${(heap.heapUsed / 2 ** 20).toFixed(0)} MB (array buffers ${((heap.arrayBuffers ?? 0) / 2 ** 20).toFixed(0)} MB, rss ${((heap.rss ?? 0) / 2 ** 20).toFixed(0)} MB; ready ${formatNumber(heap.startSeconds ?? NaN, 1)} s after start)`,
      ...(heapLineItems >= 100_000
        ? { target: '< 300 MB', met: heap.heapUsed < HEAP_TARGET_BYTES }
        : { target: '< 300 MB at 100,000 (--full)' }),
    });
    const full = heapLineItems >= 100_000;
    if (heap.startSeconds !== undefined) {
      figures.push({
        figure: `ready after start, ${formatNumber(heapLineItems)} line items`,
        result: `${formatNumber(heap.startSeconds, 1)} s`,
        ...(full ? { target: '< 3 s', met: heap.startSeconds < 3 } : {}),
      });
    }
    if (heap.restartSeconds !== undefined) {
      figures.push({
        figure: `ready after a restart (catalog snapshot), ${formatNumber(heapLineItems)} line items`,
        result: `${formatNumber(heap.restartSeconds, 1)} s`,
        ...(full ? { target: '< 3 s', met: heap.restartSeconds < 3 } : {}),
      });
    }
    if (heap.changeMillis && heap.changeMillis.length > 0) {
      const slowest = Math.max(...heap.changeMillis);
      figures.push({
        figure: `change visible to serve, ${formatNumber(heapLineItems)} line items (slowest of ${heap.changeMillis.length} pauses)`,
        result: `${formatMs(slowest)} (each: ${heap.changeMillis.map((ms) => formatNumber(ms, 0)).join(', ')} ms)`,
        ...(full ? { target: '< 1 s', met: slowest < 1000 } : {}),
      });
    }
  }
  notes.push(
    `${formatNumber(lineItems)} active line items in ${formatNumber(lineItems / 5)} campaigns (1-3 include keywords each, 30% with an exclude keyword, 33% with placement targeting; 45% CPC, 45% tCPM, 10% CPA; 1-2 creatives), ${PLACEMENTS} placements of which ${CERTIFIED_PLACEMENTS} certified.`,
    `Load: autocannon, ${connections} keep-alive connections, ${durationSeconds} s on each of service and stub in ${ROUNDS} rounds each (service, stub, stub, service, ...; after each round the bench waits for the service to use under a tenth of a core) after a ${WARMUP_SECONDS} s warm-up of each, cycling ${DISTINCT_REQUESTS} distinct bodies (90% on-topic chat query/response pairs, 10% small talk). Rounds, req/s: service ${real.rounds.map((rps) => formatNumber(rps)).join(', ')}; stub ${stubbed.rounds.map((rps) => formatNumber(rps)).join(', ')}.`,
    `Fill rate: share of 200 answers with a non-null ad, from one sequential pass over the ${DISTINCT_REQUESTS} bodies before the load; every ad's links were checked to be the service's TRACKING_BASE_URL + /v1/t/i/ or /v1/t/c/ + a token.`,
    options.url
      ? 'Seeded through the admin and management APIs of the service at --url.'
      : 'Seeded with the admin repository functions (tenancy) and bulk SQL (campaigns, line items, creatives) before the service started; the heap figure comes from a second service started with --expose-gc and bench/heapProbe, after it answered a serve (if it cannot start, from the index alone built in process by bench/indexHeapProbe).',
    ...(options.semanticShare !== undefined && !options.url ? [`Heap service: ${(options.semanticShare * 100).toFixed(0)}% of its line items opted into semantic matching (--semantic-share; the load above had none).`] : []),
    'Load generator and service share the same 2 cores; the stub runs in its own process, up during the whole measurement, under the same load, so the ratio is like for like.',
    `Cores used in each round (of 2; /proc): ${coresNotes(rounds.serviceRounds, rounds.stubRounds)}. "generator" is the bench's own process, which runs autocannon; "others" is what the machine ran outside the three.`,
  );
  if (profile) notes.push(`CPU profile of the service (top self time): ${profile}`);
  return { scenario: 'serve', baselineName: 'fastify stub', figures, notes, failures };
}

interface ServeSeed extends BenchTenancy {
  placementCertified: Map<string, boolean>;
}

/** semanticShare: that share of the line items (spread evenly) opted into semantic matching, as serve-semantic's "on" service. */
function catalogSeeders(lineItems: number, semanticShare?: number) {
  return {
    stores: async ({ db }: { db: Postgres }): Promise<ServeSeed> => {
      const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
      const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((p) => p.id) });
      await seedCatalog(db, tenancy.userId, semanticShare === undefined ? catalog : optedIn(catalog, semanticShare), 'active');
      return withCertification(tenancy);
    },
    http: async (baseUrl: string, adminToken: string): Promise<ServeSeed> => {
      const tenancy = await seedTenancyOverHttp(baseUrl, adminToken, PLACEMENTS, CERTIFIED_PLACEMENTS);
      const catalog = generateCatalog({ lineItems, lineItemsPerCampaign: 5, placements: tenancy.placements.map((p) => p.id) });
      await seedCatalogOverHttp(baseUrl, tenancy, catalog, 'active');
      return withCertification(tenancy);
    },
  };
}

function withCertification(tenancy: BenchTenancy): ServeSeed {
  return { ...tenancy, placementCertified: new Map(tenancy.placements.map((placement) => [placement.id, placement.certified])) };
}

interface FillSample {
  sampled: number;
  rate: number;
  certifiedRate: number;
  uncertifiedRate: number;
  problems: string[];
}

/** One sequential pass: how many answers carry an ad, per certification, and whether every answer is well formed. */
async function sampleFill(
  baseUrl: string,
  trackingBaseUrl: string | undefined,
  auth: Record<string, string>,
  bodies: readonly ServeRequestBody[],
  seed: ServeSeed,
): Promise<FillSample> {
  const problems: string[] = [];
  const tally = { certified: [0, 0], uncertified: [0, 0] };
  for (const body of bodies) {
    const answer = await requestJson<ServeAnswer>('POST', `${baseUrl}/v1/serve`, { headers: auth, body });
    if (answer.status !== 200) {
      problems.push(`POST /v1/serve answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      if (answer.status === 404 && problems.length === 1) problems.push('is the serve route in this build?');
      break;
    }
    const bucket = seed.placementCertified.get(body.placement_id) ? tally.certified : tally.uncertified;
    bucket[1]! += 1;
    const ad = answer.body.ad;
    if (!ad) continue;
    bucket[0]! += 1;
    const { impression_url, click_url } = ad.tracking;
    if (!isTrackingLink(impression_url, IMPRESSION_PATH, trackingBaseUrl) || !isTrackingLink(click_url, CLICK_PATH, trackingBaseUrl)) {
      problems.push(`an ad's tracking links are not ${trackingBaseUrl ?? 'http(s)://...'}${IMPRESSION_PATH}|${CLICK_PATH}<token>: ${impression_url}, ${click_url}`);
      break;
    }
  }
  const share = ([filled, total]: number[]) => (total! > 0 ? filled! / total! : 0);
  const sampled = tally.certified[1]! + tally.uncertified[1]!;
  return {
    sampled,
    rate: share([tally.certified[0]! + tally.uncertified[0]!, sampled]),
    certifiedRate: share(tally.certified),
    uncertifiedRate: share(tally.uncertified),
    problems,
  };
}

function isTrackingLink(link: string, path: string, trackingBaseUrl: string | undefined): boolean {
  if (trackingBaseUrl !== undefined) return link.startsWith(trackingBaseUrl + path) && link.length > trackingBaseUrl.length + path.length;
  return /^https?:\/\//.test(link) && new URL(link).pathname.startsWith(path);
}

interface HeapFigure {
  heapUsed: number;
  /** Typed arrays' and WebAssembly memories' bytes, outside heapUsed (the semantic matrices, the word table); undefined when only the index could be measured. */
  arrayBuffers?: number;
  /** The whole service's resident set; undefined when only the index could be measured. */
  rss?: number;
  /** From spawning the service to its first 200 on /healthz (it builds the whole index first). */
  startSeconds?: number;
  /** From spawning a second service on the same DATA_DIR, after the first stopped, to its first 200 on /healthz. */
  restartSeconds?: number;
  /** From pausing a served line item to the first serve without it, ms, per change (see changeVisibility.ts). */
  changeMillis?: number[];
  /** How the figure was taken, when not from the running service. */
  method?: string;
  problem?: string;
}

/**
 * A second service holding `lineItems` line items, asked for its heap once it answers a serve. When
 * it cannot start with that catalog, the index alone is built the way servingRoutes builds it, in
 * a child process with --expose-gc (bench/indexHeapProbe), so the memory figure is still known and
 * the failed start is reported.
 */
async function measureHeap(lineItems: number, semanticShare: number | undefined): Promise<HeapFigure> {
  const dataDir = temporaryDataDir('serve-heap');
  const seeded = await withStores(dataDir, catalogSeeders(lineItems, semanticShare).stores);
  let service: RunningService;
  const startedAt = performance.now();
  try {
    progress('starting a service holding them');
    service = await startService({ dataDir, heapProbe: true });
  } catch (error) {
    const problem = `the service did not start with ${formatNumber(lineItems)} line items: ${(error as Error).message}`;
    const probe = await runIndexHeapProbe(dataDir);
    return {
      heapUsed: probe.heapAfter - probe.heapBefore,
      method: `index alone, built in process: loadCatalog ${formatNumber(probe.loadCatalogMs / 1000, 1)} s + buildAdIndex ${formatNumber(probe.buildMs / 1000, 1)} s`,
      problem,
    };
  }
  const startSeconds = (performance.now() - startedAt) / 1000;
  const body = generateServeRequests(1, seeded.placements.map((placement) => placement.id))[0]!;
  const serveOnce = (baseUrl: string) => requestJson('POST', `${baseUrl}/v1/serve`, { headers: { authorization: `Bearer ${seeded.publisherToken}` }, body });
  let figure: HeapFigure;
  try {
    const answer = await serveOnce(service.baseUrl);
    const usage = await requestHeapReport(service.child);
    progress('timing changes until serving sees them');
    const changes = await timeChangeVisibility(service.baseUrl, seeded.apiKey, seeded.publisherToken, body);
    figure = {
      heapUsed: usage.heapUsed,
      arrayBuffers: usage.arrayBuffers,
      rss: usage.rss,
      startSeconds,
      changeMillis: changes.millis,
      problem: answer.status === 200 ? changes.problem : `serve answered ${answer.status} in the heap run`,
    };
  } finally {
    await service.stop();
  }
  // The same DATA_DIR again: the first service left its catalog snapshot there, as a deploy or a crash would.
  progress('restarting it');
  const restartedAt = performance.now();
  const restarted = await startService({ dataDir });
  try {
    figure.restartSeconds = (performance.now() - restartedAt) / 1000;
    const answer = await serveOnce(restarted.baseUrl);
    if (answer.status !== 200) figure.problem ??= `serve answered ${answer.status} after the restart`;
  } finally {
    await restarted.stop();
  }
  return figure;
}

async function runIndexHeapProbe(dataDir: string): Promise<IndexHeapReport> {
  const { stdout } = await execFileAsync(process.execPath, ['--expose-gc', path.join(packageRoot, 'dist', 'bench', 'indexHeapProbe.js'), dataDir], {
    env: process.env,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as IndexHeapReport;
}
