import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Postgres } from '../../src/store/postgres.js';
import { NANOS_PER_USD } from '../../src/money/nanoUsd.js';
import { signTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import type { BenchOptions } from '../benchOptions.js';
import { generateCatalog, type GeneratedCampaign } from '../catalogGenerator.js';
import { summarizeLatencies, type LatencySummary } from '../latencyStats.js';
import { progress } from '../progress.js';
import { formatMs, formatNumber, type ScenarioReport } from '../scenarioReport.js';
import { seedCatalog } from '../seedCatalog.js';
import { seedTenancy, type BenchTenancy } from '../seedTenancy.js';
import { BENCH_ADMIN_TOKEN, BENCH_TRACKING_SECRET } from '../serviceProcess.js';
import { prepareService } from '../serviceUnderTest.js';
import { BROWSER_IMAGE_LOAD } from '../trafficMix.js';

const IMPORT_BYTES = 60 * 1_048_576;
const PIXELS_PER_SECOND = 200;
const BASELINE_SECONDS = 5;
const PIXEL_P99_TARGET_MS = 50;
const RSS_GROWTH_TARGET_MB = 300;

type PixelRun = LatencySummary & { errors: number };

interface ImportSeed {
  tenancy: BenchTenancy;
  catalog: GeneratedCampaign[];
}

/**
 * Live pixels during a large NDJSON import (`POST /v1/admin/events/import`): pixels at 200/s for
 * BASELINE_SECONDS alone, then the same rate while a 60 MB import runs. Reports pixel p99 in both
 * phases and the service's RSS growth (VmRSS of its process, sampled every 100 ms) during the import
 * against the issue's targets (p99 < 50 ms, growth < 300 MB), and checks the import counted every line.
 */
export async function importScenario(options: BenchOptions): Promise<ScenarioReport> {
  const failures: string[] = [];
  const service = await prepareService('import', options, {
    stores: async ({ db }: { db: Postgres }): Promise<ImportSeed> => {
      const tenancy = await seedTenancy(db, 4, 4);
      const catalog = generateCatalog({ lineItems: 20, lineItemsPerCampaign: 5, placements: [] });
      await seedCatalog(db, tenancy.userId, catalog, 'active');
      return { tenancy, catalog };
    },
  }, { env: { TRUST_PROXY: '127.0.0.1' } });
  const pid = service.pid;
  const { body, lines } = importBody(service.seeded);
  let baseline: PixelRun;
  let during: PixelRun;
  let rssBeforeMb = NaN;
  let rssPeakMb = NaN;
  let importMs = 0;
  try {
    progress(`pixels at ${PIXELS_PER_SECOND}/s alone for ${BASELINE_SECONDS} s`);
    const alone = pacedPixels(service.baseUrl, service.seeded);
    await sleep(BASELINE_SECONDS * 1000);
    baseline = await alone.stop();
    rssBeforeMb = rssMb(pid);

    progress(`pixels at ${PIXELS_PER_SECOND}/s during a ${formatNumber(IMPORT_BYTES / 1_048_576)} MB import of ${formatNumber(lines)} lines`);
    const pixels = pacedPixels(service.baseUrl, service.seeded);
    let peak = rssBeforeMb;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
    const started = performance.now();
    const response = await fetch(`${service.baseUrl}/v1/admin/events/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' },
      body: new Uint8Array(body),
    });
    const answer = (await response.json()) as { data?: { accepted: number; invalid: number; rejected: number } };
    importMs = performance.now() - started;
    clearInterval(sampler);
    rssPeakMb = peak;
    during = await pixels.stop();
    const counted = (answer.data?.accepted ?? 0) + (answer.data?.invalid ?? 0);
    if (response.status !== 200 || counted !== lines) failures.push(`import answered ${response.status} with ${counted} of ${lines} lines stored`);
    if (during.errors > 0 || baseline.errors > 0) failures.push(`${baseline.errors + during.errors} pixels were not answered 200`);
  } finally {
    failures.push(...(await service.stop()));
  }
  const growthMb = rssPeakMb - rssBeforeMb;
  return {
    scenario: 'import',
    baselineName: 'pixels alone',
    figures: [
      {
        figure: `pixel p99 during a ${formatNumber(IMPORT_BYTES / 1_048_576)} MB import`,
        result: formatMs(during.p99),
        target: `< ${PIXEL_P99_TARGET_MS} ms`,
        met: during.p99 < PIXEL_P99_TARGET_MS,
        baseline: formatMs(baseline.p99),
      },
      { figure: 'pixel p50 / max during the import', result: `${formatMs(during.p50)} / ${formatMs(during.max)}`, baseline: `${formatMs(baseline.p50)} / ${formatMs(baseline.max)}` },
      {
        figure: 'service RSS growth during the import',
        result: Number.isNaN(growthMb) ? 'not measured (needs /proc and a service the bench started)' : `${formatNumber(Math.round(growthMb))} MB (${formatNumber(Math.round(rssBeforeMb))} -> ${formatNumber(Math.round(rssPeakMb))} MB)`,
        target: `< ${RSS_GROWTH_TARGET_MB} MB`,
        met: Number.isNaN(growthMb) ? undefined : growthMb < RSS_GROWTH_TARGET_MB,
      },
      { figure: 'import time (answered once written to ClickHouse)', result: `${formatMs(importMs)} (${formatNumber(Math.round(lines / (importMs / 1000)))} lines/s)` },
    ],
    notes: [
      `${formatNumber(lines)} valid NDJSON lines for 20 active line items; pixels are signed impression links of those line items, one new serve each, sent at ${PIXELS_PER_SECOND}/s from residential addresses (X-Forwarded-For under TRUST_PROXY=127.0.0.1) whatever the answers' speed.`,
      'RSS is VmRSS of the service process from /proc, sampled every 100 ms: before the import, and the peak during it.',
    ],
    failures,
  };
}

function importBody({ tenancy, catalog }: ImportSeed): { body: Buffer; lines: number } {
  const lineItems = catalog.flatMap((campaign) => campaign.lineItems);
  const time = new Date(Date.now() - 3_600_000).toISOString();
  const parts: string[] = [];
  let bytes = 0;
  for (let index = 0; bytes < IMPORT_BYTES; index++) {
    const line = `${JSON.stringify({
      type: 'impression',
      time,
      line_item_id: lineItems[index % lineItems.length]!.id,
      placement_id: tenancy.placements[index % tenancy.placements.length]!.id,
      ip: `73.162.${(index >> 8) & 255}.${index & 255}`,
      user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    })}\n`;
    parts.push(line);
    bytes += line.length;
  }
  return { body: Buffer.from(parts.join('')), lines: parts.length };
}

/** Pixels at a fixed rate (an open-loop load: a slow answer does not slow the sending). */
function pacedPixels(baseUrl: string, { tenancy, catalog }: ImportSeed) {
  const lineItem = catalog[0]!.lineItems[0]!;
  const model = lineItem.stored.bids!.bid_type as TrackingClaims['m'];
  const placement = tenancy.placements.find((candidate) => candidate.certified) ?? tenancy.placements[0]!;
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let errors = 0;
  let serve = 0;
  const send = () => {
    const claims: TrackingClaims = {
      s: `import-bench-${tenancy.runId}-${serve++}`,
      c: catalog[0]!.id,
      l: lineItem.id,
      r: lineItem.creativeIds[0]!,
      p: placement.id,
      u: tenancy.publisherId,
      m: model,
      n: Math.round(lineItem.stored.bids!.bid_value * NANOS_PER_USD),
      e: Math.floor(Date.now() / 1000) + 3600,
      t: Date.now() - 2000,
    };
    const started = performance.now();
    const pixel = fetch(`${baseUrl}${IMPRESSION_PATH}${signTrackingToken(claims, BENCH_TRACKING_SECRET)}`, {
      headers: { 'x-forwarded-for': `73.162.10.${serve & 255}`, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36', ...BROWSER_IMAGE_LOAD },
    })
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - started);
        else errors++;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inFlight.delete(pixel));
    inFlight.add(pixel);
  };
  const timer = setInterval(send, 1000 / PIXELS_PER_SECOND);
  return {
    async stop(): Promise<PixelRun> {
      clearInterval(timer);
      await Promise.all(inFlight);
      return { ...summarizeLatencies(latencies), errors };
    },
  };
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? NaN : Number(kb) / 1024;
  } catch {
    return NaN;
  }
}
