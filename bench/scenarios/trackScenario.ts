import type autocannon from 'autocannon';
import type { ClickHouseClient } from '@clickhouse/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Postgres } from '../../src/store/postgres.js';
import { NANOS_PER_USD } from '../../src/money/nanoUsd.js';
import { signTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import type { BenchOptions } from '../benchOptions.js';
import { withStores } from '../benchStores.js';
import { generateCatalog, type GeneratedCampaign } from '../catalogGenerator.js';
import { alternateRounds, loadFailures, runLoad, type LoadResult } from '../loadTest.js';
import { coresNotes, cpuPerAnswer, quietRatio, roundRecorder } from '../measuredRounds.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedCatalogOverHttp, seedTenancyOverHttp } from '../seedOverHttp.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { BENCH_TRACKING_SECRET, startStub } from '../serviceProcess.js';
import { prepareService } from '../serviceUnderTest.js';
import { benchServeId, benchServeIndex, SERVE_ID_TAG_AT, serveIdTag } from '../benchServeIds.js';
import { BROWSER_IMAGE_LOAD, BROWSER_NAVIGATION, browserHeaders, trafficShares, visitorStream, type TrafficKind } from '../trafficMix.js';

const LINE_ITEMS = 200;
const PLACEMENTS = 10;
const CERTIFIED_PLACEMENTS = 5;
const WARMUP_SECONDS = 2;
/**
 * The measured pixel time is split into this many rounds on each, alternating service, stub, stub,
 * service, ... (each first as often as second).
 */
const ROUNDS = 4;
/** Upper bound on pixel requests per run, whatever the duration (also sizes the answer bookkeeping). */
const MAX_IMPRESSIONS = 3_000_000;
/** Share of answered impressions that are then clicked. */
const CLICK_SHARE = 0.05;
/** The service counts a click only a second or more after its impression (MIN_CLICK_DELAY_MS). */
const CLICK_DELAY_MS = 1500;

interface TrackSeed {
  tenancy: BenchTenancy;
  catalog: GeneratedCampaign[];
}

/**
 * Impression pixels and click redirects through the real endpoints, with signed tokens for real
 * line items and creatives, from residential, data-center and bot visitors (X-Forwarded-For under
 * TRUST_PROXY=127.0.0.1). Every serve id is unique and every answer is remembered, so after the
 * service has stopped (flushing its buffer) each stored event is matched to the answer it got:
 * accepted and stored must be the same set, with the invalid share and reasons as generated.
 */
export async function trackScenario(options: BenchOptions): Promise<ScenarioReport> {
  const durationSeconds = options.duration ?? (options.full ? 30 : 10);
  const connections = options.connections ?? 10;
  const trackingSecret = options.url ? process.env.TRACKING_SECRET : BENCH_TRACKING_SECRET;
  if (!trackingSecret) throw new Error('track with --url signs tokens with TRACKING_SECRET from the environment: set it to the service\'s secret');
  const failures: string[] = [];
  const notes: string[] = [];

  const service = await prepareService(
    'track',
    options,
    {
      stores: async ({ db }: { db: Postgres }): Promise<TrackSeed> => {
        const tenancy = await seedTenancy(db, PLACEMENTS, CERTIFIED_PLACEMENTS);
        const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: [] });
        await seedCatalog(db, tenancy.userId, catalog, 'active');
        return { tenancy, catalog };
      },
      http: async (baseUrl, adminToken): Promise<TrackSeed> => {
        const tenancy = await seedTenancyOverHttp(baseUrl, adminToken, PLACEMENTS, CERTIFIED_PLACEMENTS);
        const catalog = generateCatalog({ lineItems: LINE_ITEMS, lineItemsPerCampaign: 5, placements: [] });
        await seedCatalogOverHttp(baseUrl, tenancy, catalog, 'active');
        return { tenancy, catalog };
      },
    },
    { env: { TRUST_PROXY: '127.0.0.1' } },
  );
  const links = trackingLinkFactory(service.seeded, trackingSecret);
  const answered = new Uint8Array(MAX_IMPRESSIONS);
  let pixels: LoadResult;
  let clicks: LoadResult;
  const clickAnswered = new Set<number>();
  const stub = await startStub('track');
  let stubPixels: LoadResult;
  // Which process used the cores in each round: the service, the stub, this process (the load
  // generator), anything else on the machine.
  const pids: Record<string, number> = { stub: stub.child.pid! };
  if (service.pid) pids.service = service.pid;
  const rounds = roundRecorder(pids, service.pid);
  try {
    // Warm-up tokens are their own serves (numbered past the measured ones), so they never collide with them.
    let warmups = MAX_IMPRESSIONS;
    let measured = 0;
    const warmup = pixelRequests(links, () => warmups++, () => undefined);
    const counted = pixelRequests(links, () => measured++, (index, status) => status === 200 && (answered[index] = 1));
    const stubbed = pixelRequests(links, () => 0, () => undefined);
    const load = (baseUrl: string, request: autocannon.Request, seconds: number, maxRequests?: number) =>
      runLoad({ baseUrl, connections, durationSeconds: seconds, maxRequests, requests: [request], expectedStatuses: [200] });
    await load(service.baseUrl, warmup, WARMUP_SECONDS);
    await load(stub.baseUrl, stubbed, WARMUP_SECONDS);
    progress(`pixels: ${ROUNDS} rounds of ${(durationSeconds / ROUNDS).toFixed(1)} s on the service and on the stub, alternating`);
    ({ service: pixels, stub: stubPixels } = await alternateRounds(
      ROUNDS,
      () => rounds.service(() => load(service.baseUrl, counted, durationSeconds / ROUNDS, MAX_IMPRESSIONS - measured)),
      () => rounds.stub(() => load(stub.baseUrl, stubbed, durationSeconds / ROUNDS)),
      { balanced: true },
    ));
  } catch (error) {
    await Promise.all([service.stop(), stub.stop()]);
    throw error;
  }
  await stub.stop();
  try {
    const clicked = pickClicks(answered, pixels.responses);
    if (clicked.length === 0) throw new Error(`no pixel was answered 200: ${JSON.stringify(pixels.statusCounts)}`);
    progress(`${formatNumber(pixels.responses)} pixels answered; clicking ${formatNumber(clicked.length)} of them`);
    await sleep(CLICK_DELAY_MS);
    let nextClick = 0;
    clicks = await runLoad({
      baseUrl: service.baseUrl,
      connections,
      durationSeconds,
      maxRequests: clicked.length,
      requests: [
        {
          method: 'GET',
          setupRequest: (request, context) => {
            const index = clicked[nextClick++ % clicked.length]!;
            (context as { index: number }).index = index;
            return { ...request, path: CLICK_PATH + links.token(index), headers: { ...links.headers(index), ...BROWSER_NAVIGATION } };
          },
          onResponse: (status, _body, context) => {
            if (status === 302) clickAnswered.add((context as { index: number }).index);
          },
        },
      ],
      expectedStatuses: [302],
    });
  } finally {
    failures.push(...(await service.stop()));
  }
  const profile = service.profileSummary(pixels.windows);
  // The stub's answers are checked too: a yardstick answering errors measures something else.
  failures.push(...loadFailures('pixel', pixels), ...loadFailures('click', clicks), ...loadFailures('stub pixel', stubPixels));

  const acceptedImpressions = countSet(answered);
  const figures: Figure[] = [
    {
      figure: 'pixel throughput',
      result: `${formatNumber(pixels.requestsPerSecond)} req/s`,
      target: '>= 15,000 req/s',
      met: pixels.requestsPerSecond >= 15_000,
      baseline: `${formatNumber(stubPixels.requestsPerSecond)} req/s`,
      ratio: ratio(pixels.requestsPerSecond, stubPixels.requestsPerSecond),
    },
    quietRatio('pixel throughput', rounds.serviceRounds, rounds.stubRounds),
    {
      figure: 'CPU a pixel: all threads, main thread (load generator)',
      result: cpuPerAnswer(rounds.serviceRounds, rounds.stubRounds, 'service', rounds.settleTicks),
      baseline: cpuPerAnswer(rounds.stubRounds, rounds.serviceRounds, 'stub'),
    },
    { figure: 'pixel latency p50', result: formatMs(pixels.latency.p50), baseline: formatMs(stubPixels.latency.p50) },
    { figure: 'pixel latency p90', result: formatMs(pixels.latency.p90), baseline: formatMs(stubPixels.latency.p90) },
    {
      figure: 'pixel latency p99',
      result: formatMs(pixels.latency.p99),
      target: '< 10 ms',
      met: pixels.latency.p99 < 10,
      baseline: formatMs(stubPixels.latency.p99),
      ratio: ratio(pixels.latency.p99, stubPixels.latency.p99),
    },
    {
      figure: 'click redirect throughput',
      result: `${formatNumber(clicks.requestsPerSecond)} req/s (${formatNumber(clicks.responses)} clicks)`,
    },
    { figure: 'click latency p50 / p99', result: `${formatMs(clicks.latency.p50)} / ${formatMs(clicks.latency.p99)}` },
  ];

  if (service.dataDir) {
    progress('counting stored events');
    const stored = await withStores(service.dataDir, ({ ch }) => storedEvents(ch.client, links.serveTag));
    const impressionCheck = matchStored('impression', answered, stored, (index) => links.visitor(index).kind);
    const clickCheck = matchStored('click', indicator(clickAnswered), stored, (index) => links.visitor(index).kind);
    failures.push(...impressionCheck.problems, ...clickCheck.problems);
    figures.push(
      {
        figure: 'impressions accepted (200) / stored',
        result: `${formatNumber(acceptedImpressions)} / ${formatNumber(impressionCheck.storedOfAccepted)}`,
        target: 'equal, zero loss',
        met: impressionCheck.lost + impressionCheck.duplicated === 0,
      },
      {
        figure: 'clicks accepted (302) / stored',
        result: `${formatNumber(clickAnswered.size)} / ${formatNumber(clickCheck.storedOfAccepted)}`,
        target: 'equal, zero loss',
        met: clickCheck.lost + clickCheck.duplicated === 0,
      },
      {
        figure: 'invalid share of stored impressions (generated)',
        result: `${pct(impressionCheck.invalidShare)} (${pct(impressionCheck.generatedInvalidShare)})`,
        target: 'as generated',
        met: impressionCheck.misclassified === 0,
      },
      { figure: 'stored impressions by reason', result: byReason(impressionCheck.byReason) },
      {
        figure: 'invalid share of stored clicks (generated)',
        result: `${pct(clickCheck.invalidShare)} (${pct(clickCheck.generatedInvalidShare)})`,
        target: 'as generated',
        met: clickCheck.misclassified === 0,
      },
      { figure: 'stored clicks by reason', result: byReason(clickCheck.byReason) },
    );
    if (impressionCheck.unacknowledged + clickCheck.unacknowledged > 0) {
      notes.push(
        `${impressionCheck.unacknowledged + clickCheck.unacknowledged} events were stored whose answer the load generator never read: requests in flight when the timed run ended (closed connections), not duplicates.`,
      );
    }
  } else {
    notes.push('With --url the bench cannot open the service\'s stores: accepted == stored was not checked.');
  }

  notes.push(
    `Traffic: ${pct(trafficShares.residential)} residential (consumer ISP addresses, browser user agents), ${pct(trafficShares.datacenter)} data-center addresses (AWS, Google Cloud, Azure, DigitalOcean, Hetzner, OVH; IPv4 and IPv6), ${pct(trafficShares.bot)} bot user agents on consumer addresses; every request a new serve with its own signed token for one of ${LINE_ITEMS} real line items.`,
    `Load: autocannon, ${connections} connections, ${durationSeconds} s of pixels on each of service and stub in ${ROUNDS} rounds each (service, stub, stub, service, ...) after a ${WARMUP_SECONDS} s warm-up of each (rounds, req/s: service ${pixels.rounds.map((rps) => formatNumber(rps)).join(', ')}; stub ${stubPixels.rounds.map((rps) => formatNumber(rps)).join(', ')}), then ${pct(CLICK_SHARE)} of the answered impressions clicked ${CLICK_DELAY_MS / 1000} s later by the same visitor. Tokens are signed by the load generator as it sends (same cost for service and stub).`,
  );
  if (service.dataDir) {
    notes.push(
      'Stored events were counted after a SIGTERM stop (the service flushes its buffer on shutdown) by opening the same DATA_DIR, and matched one by one to the answers by serve id.',
    );
  }
  notes.push(
    `Cores used in each round (of 2; /proc): ${coresNotes(rounds.serviceRounds, rounds.stubRounds)}. "generator" is the bench's own process, which runs autocannon and signs the tokens; "others" is what the machine ran outside the three.`,
  );
  if (profile) notes.push(`CPU profile of the service in its pixel rounds (top self time): ${profile}`);
  return { scenario: 'track', baselineName: 'fastify stub', figures, notes, failures };
}

interface TrackingLinkFactory {
  /** What every serve id of the run carries (benchServeIds.ts). */
  serveTag: string;
  token(index: number): string;
  visitor(index: number): { kind: TrafficKind; ip: string; userAgent: string };
  headers(index: number): Record<string, string>;
}

/**
 * Tokens as serving signs them, one serve per index, reproducible (the click of serve i reuses its
 * token): serve i is taken as served when its first token is signed, just before its pixel, as a
 * browser fires a pixel right after its serve.
 */
function trackingLinkFactory({ tenancy, catalog }: TrackSeed, secret: string): TrackingLinkFactory {
  const lineItems = catalog.flatMap((campaign) => campaign.lineItems.map((lineItem) => ({ campaign, lineItem })));
  const certified = tenancy.placements.filter((placement) => placement.certified).map((placement) => placement.id);
  const all = tenancy.placements.map((placement) => placement.id);
  const serveTag = serveIdTag(tenancy.runId);
  // When each measured serve was made, so its click carries the same serve id; warm-up serves are never clicked.
  const servedAt = new Float64Array(MAX_IMPRESSIONS);
  const expiresAt = Math.floor(Date.now() / 1000) + 6 * 3600;
  const visitor = visitorStream();
  return {
    serveTag,
    visitor,
    token(index) {
      const { campaign, lineItem } = lineItems[index % lineItems.length]!;
      const bids = lineItem.stored.bids!;
      const model = bids.bid_type as TrackingClaims['m'];
      let servedAtMs = index < MAX_IMPRESSIONS ? servedAt[index]! : 0;
      if (servedAtMs === 0) {
        servedAtMs = Date.now();
        if (index < MAX_IMPRESSIONS) servedAt[index] = servedAtMs;
      }
      const claims: TrackingClaims = {
        s: benchServeId(servedAtMs, serveTag, index),
        c: campaign.id,
        l: lineItem.id,
        r: lineItem.creativeIds[index % lineItem.creativeIds.length]!,
        // Impression-priced demand only ever reaches certified placements.
        p: model === 'tCPM' ? certified[index % certified.length]! : all[index % all.length]!,
        u: tenancy.publisherId,
        m: model,
        n: Math.round((model === 'tCPM' ? bids.bid_value / 1000 : bids.bid_value) * NANOS_PER_USD),
        e: expiresAt,
        t: servedAtMs,
      };
      return signTrackingToken(claims, secret);
    },
    headers(index) {
      const { ip, userAgent } = visitor(index);
      return { 'x-forwarded-for': ip, ...browserHeaders(userAgent) };
    },
  };
}

function pixelRequests(
  links: TrackingLinkFactory,
  nextIndex: () => number,
  onAnswer: (index: number, status: number) => unknown,
): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (request, context) => {
      const index = nextIndex();
      (context as { index: number }).index = index;
      return { ...request, path: IMPRESSION_PATH + links.token(index), headers: { ...links.headers(index), ...BROWSER_IMAGE_LOAD } };
    },
    onResponse: (status, _body, context) => {
      onAnswer((context as { index: number }).index, status);
    },
  };
}

/** Every 1/CLICK_SHARE-th answered impression. */
function pickClicks(answered: Uint8Array, responses: number): number[] {
  const clicks: number[] = [];
  const step = Math.round(1 / CLICK_SHARE);
  for (let index = 0, seen = 0; index < answered.length && seen < responses; index++) {
    if (!answered[index]) continue;
    if (seen++ % step === 0) clicks.push(index);
  }
  return clicks;
}

interface StoredEvent {
  serve_id: string;
  type: string;
  ivt: string;
}

async function storedEvents(client: ClickHouseClient, serveTag: string): Promise<StoredEvent[]> {
  const result = await client.query({
    query: `SELECT serve_id, type, ivt FROM events_v1 WHERE substring(serve_id, ${SERVE_ID_TAG_AT.from + 1}, ${SERVE_ID_TAG_AT.chars}) = {tag:String}`,
    query_params: { tag: serveTag },
    format: 'JSONEachRow',
  });
  return result.json<StoredEvent>();
}

const expectedReason: Record<TrafficKind, string> = { residential: '', datacenter: 'datacenter', bot: 'bot' };

/**
 * Matches stored events of one type to the answers: each accepted serve stored exactly once, with
 * the reason its generated visitor calls for.
 */
function matchStored(type: 'impression' | 'click', accepted: Uint8Array, stored: readonly StoredEvent[], kindOf: (index: number) => TrafficKind) {
  const times = new Map<number, number>();
  const byReason: Record<string, number> = {};
  let misclassified = 0;
  let invalid = 0;
  let generatedInvalid = 0;
  for (const event of stored) {
    if (event.type !== type) continue;
    const index = benchServeIndex(event.serve_id);
    if (index >= MAX_IMPRESSIONS) continue; // warm-up
    times.set(index, (times.get(index) ?? 0) + 1);
    if (!accepted[index]) continue;
    byReason[event.ivt] = (byReason[event.ivt] ?? 0) + 1;
    if (event.ivt !== '') invalid++;
    if (kindOf(index) !== 'residential') generatedInvalid++;
    if (event.ivt !== expectedReason[kindOf(index)]) misclassified++;
  }
  let storedOfAccepted = 0;
  let lost = 0;
  let duplicated = 0;
  for (let index = 0; index < accepted.length; index++) {
    if (!accepted[index]) continue;
    const count = times.get(index) ?? 0;
    if (count === 0) lost++;
    else storedOfAccepted++;
    if (count > 1) duplicated++;
  }
  const unacknowledged = [...times.keys()].filter((index) => !accepted[index]).length;
  const problems: string[] = [];
  if (lost > 0) problems.push(`${lost} accepted ${type}s are not in ClickHouse`);
  if (duplicated > 0) problems.push(`${duplicated} ${type}s were stored more than once`);
  if (misclassified > 0) problems.push(`${misclassified} stored ${type}s carry a different invalid-traffic reason than their visitor calls for`);
  return {
    storedOfAccepted,
    lost,
    duplicated,
    unacknowledged,
    misclassified,
    byReason,
    invalidShare: storedOfAccepted > 0 ? invalid / storedOfAccepted : 0,
    generatedInvalidShare: storedOfAccepted > 0 ? generatedInvalid / storedOfAccepted : 0,
    problems,
  };
}

function indicator(indices: ReadonlySet<number>): Uint8Array {
  const flags = new Uint8Array(MAX_IMPRESSIONS);
  for (const index of indices) flags[index] = 1;
  return flags;
}

function countSet(flags: Uint8Array): number {
  let count = 0;
  for (const flag of flags) count += flag;
  return count;
}

function byReason(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${reason || 'valid'} ${formatNumber(count)}`)
    .join(', ');
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
