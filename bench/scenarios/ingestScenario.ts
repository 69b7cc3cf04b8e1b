import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { NIL_UUID, NO_EVENT_CONTEXT, type TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { SPOOL_COLUMNS } from '../../src/tracking/eventSpool.js';
import { ApiError } from '../../src/http/errors.js';
import type { BenchOptions } from '../benchOptions.js';
import { withStores } from '../benchStores.js';
import { DAY_MS, generateEvents } from '../eventGenerator.js';
import { formatNumber, ratio, type Figure, type ScenarioReport } from '../scenarioReport.js';
import { temporaryDataDir } from '../serviceProcess.js';
import { progress } from '../progress.js';
import { visitorStream } from '../trafficMix.js';
import { newServeId } from '../../src/serving/serveId.js';

const DISTINCT_EVENTS = 20_000;
const INGEST_TARGET_PER_SECOND = 200_000;

interface IngestRun {
  batchSize: number;
  pipelinePerSecond: number;
  acceptPerSecond: number;
  clientPerSecond: number;
  refusals: number;
}

/**
 * Events/s from the event pipeline into ClickHouse (materialized views included), in process on a
 * temp DATA_DIR: accept N events one at a time, as the pixel does (acceptInTurn: one spool write per turn),
 * with EVENT_FLUSH_ROWS = the batch size, until flush() returns; then the same rows through plain
 * client inserts of that size, the ceiling without the spool. Every run is counted back.
 */
export async function ingestScenario(options: BenchOptions): Promise<ScenarioReport> {
  const total = options.full ? 1_000_000 : 300_000;
  const batchSizes = options.full ? [1_000, 10_000, 50_000, 100_000] : [1_000, 10_000, 50_000];
  const dataDir = temporaryDataDir('ingest');
  const failures: string[] = [];
  const runs: IngestRun[] = [];
  let enginePerSecond = 0;
  await withStores(dataDir, async ({ ch }) => {
    progress('engine alone');
    enginePerSecond = await timeEngineInsert(ch, total);
    for (const batchSize of batchSizes) {
      progress(`batch ${formatNumber(batchSize)}`);
      const pipelineRun = await timePipeline(ch, dataDir, batchSize, total);
      const clientPerSecond = await timeClientInserts(ch, batchSize, total);
      failures.push(...pipelineRun.problems);
      runs.push({ batchSize, clientPerSecond, ...pipelineRun });
    }
  });
  const best = runs.reduce((a, b) => (b.pipelinePerSecond > a.pipelinePerSecond ? b : a));
  const figures: Figure[] = runs.map((run) => ({
    figure: `batch ${formatNumber(run.batchSize)}: pipeline into ClickHouse`,
    result: `${formatNumber(run.pipelinePerSecond)} events/s (accept alone ${formatNumber(run.acceptPerSecond)}/s)`,
    ...(run === best ? { target: `>= ${formatNumber(INGEST_TARGET_PER_SECOND)} events/s`, met: run.pipelinePerSecond >= INGEST_TARGET_PER_SECOND } : {}),
    baseline: `${formatNumber(run.clientPerSecond)} events/s`,
    ratio: ratio(run.pipelinePerSecond, run.clientPerSecond),
  }));
  figures.push({
    figure: 'engine alone: INSERT ... SELECT FROM numbers(), same columns and views (ratio: best pipeline row / engine)',
    result: `${formatNumber(enginePerSecond)} events/s`,
    ratio: ratio(best.pipelinePerSecond, enginePerSecond),
  });
  const refusals = runs.reduce((sum, run) => sum + run.refusals, 0);
  return {
    scenario: 'ingest',
    baselineName: 'client insert, same batch',
    figures,
    notes: [
      `${formatNumber(total)} events per batch size, accepted one per call (as the pixel does) into createClickHouseEventPipeline with EVENT_FLUSH_ROWS = the batch size and the time trigger out of the way; the figure is events / time from the first accept to the end of flush(), so it includes the spool (one JSON line per event, one write(2) per event-loop turn as the pixel does with acceptInTurn, no fsync) and ClickHouse's inserts with every materialized view.`,
      'Baseline: the same rows through @clickhouse/client insert in the pipeline\'s format (JSONCompactEachRow, SPOOL_COLUMNS order) in batches of the same size, without the spool: what the client path allows. The last row generates the rows inside ClickHouse (no client, no parsing): what writing events_v1 and its materialized views costs by itself.',
      `Every run was counted back in events_v1 (all ${formatNumber(total)} rows present).`,
      ...(refusals > 0 ? [`The buffer refused ${formatNumber(refusals)} accepts (503 in the service) while ClickHouse caught up; the bench waited and retried.`] : []),
      'In process: ClickHouse runs in the same process as the pipeline, as it does in the service on embedded engines.',
    ],
    failures,
  };
}

/** A pool of realistic events (10% invalid) of one publisher of their own, so a run can count its own rows. */
function eventPool(prefix: string): TrackedEvent[] {
  const campaigns = Array.from({ length: 100 }, () => ({ campaign: randomUUID(), lineItem: randomUUID(), creative: randomUUID() }));
  const visitor = visitorStream(9);
  const publisher = randomUUID();
  const now = Date.now();
  return Array.from({ length: DISTINCT_EVENTS }, (_, index) => {
    const ids = campaigns[index % campaigns.length]!;
    const who = visitor(index);
    const ivt = who.kind === 'residential' ? '' : who.kind;
    return {
      event_id: randomUUID(),
      event_time: now - (index % 3_600_000),
      type: 'impression',
      source: 'pixel',
      serve_id: `${prefix}${index}`,
      campaign_id: ids.campaign,
      line_item_id: ids.lineItem,
      creative_id: ids.creative,
      placement_id: `bench-chat-${index % 20}`,
      publisher_id: publisher,
      price_model: 'tCPM',
      cost_nanos: ivt === '' ? 2_500_000 : 0,
      revenue_nanos: 0,
      click_id: NIL_UUID,
      ip: who.ip,
      ip_class: ivt === 'datacenter' ? 'datacenter' : 'public',
      ip_network: ivt === 'datacenter' ? 'AS16509 Amazon Web Services' : '',
      user_agent: who.userAgent,
      ivt,
      ...NO_EVENT_CONTEXT,
      price_nanos: 2_500_000,
    };
  });
}

async function timePipeline(ch: ClickHouse, dataDir: string, batchSize: number, total: number) {
  const pool = eventPool(`ingest-p${batchSize}-`);
  // Every pixel is a new serve: its own time-first serve id (50,000 serves a second) and event id,
  // made before the clock starts. The pool's objects carry them in turn (a turn holds fewer than the pool).
  const firstServeMs = Date.now();
  const serveIds = Array.from({ length: total }, (_, index) => newServeId(firstServeMs + Math.floor(index / 50)));
  const eventIds = Array.from({ length: total }, () => randomUUID());
  const pipeline = await createClickHouseEventPipeline({
    config: {
      DATA_DIR: dataDir,
      EVENT_FLUSH_ROWS: batchSize,
      EVENT_FLUSH_INTERVAL_MS: 600_000,
      EVENT_BUFFER_MAX_ROWS: 1_000_000,
      EVENT_SPOOL_FSYNC: false,
    },
    ch,
    log: pino({ level: 'warn' }),
  });
  let refusals = 0;
  let acceptMs = 0;
  const started = performance.now();
  for (let sent = 0; sent < total; ) {
    const sliceStarted = performance.now();
    const sliceEnd = Math.min(total, sent + Math.min(batchSize, 5_000));
    try {
      const written: Array<Promise<void>> = [];
      for (; sent < sliceEnd; sent++) {
        const event = pool[sent % pool.length]!;
        event.serve_id = serveIds[sent]!;
        event.event_id = eventIds[sent]!;
        written.push(new Promise((resolve, reject) => pipeline.acceptInTurn(event, (error) => (error === undefined ? resolve() : reject(error)))));
      }
      await Promise.all(written);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusals++;
      await sleep(5);
    }
    acceptMs += performance.now() - sliceStarted;
    // Let the pipeline's inserts run between slices, as they do between requests in the service.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await pipeline.flush();
  const elapsedMs = performance.now() - started;
  await pipeline.close();
  const stored = await countPublisher(ch, pool[0]!.publisher_id);
  return {
    pipelinePerSecond: total / (elapsedMs / 1000),
    acceptPerSecond: total / (acceptMs / 1000),
    refusals,
    problems: stored === total ? [] : [`batch ${batchSize}: ${total} events accepted, ${stored} in events_v1`],
  };
}

async function timeClientInserts(ch: ClickHouse, batchSize: number, total: number): Promise<number> {
  const prefix = `ingest-c${batchSize}-${randomUUID().slice(0, 8)}-`;
  const rows = eventPool(prefix).map((event) =>
    SPOOL_COLUMNS.map((column) =>
      column === 'event_time' ? new Date(event.event_time).toISOString().replace('T', ' ').replace('Z', '') : event[column],
    ),
  );
  const started = performance.now();
  for (let sent = 0; sent < total; sent += batchSize) {
    const values = Array.from({ length: Math.min(batchSize, total - sent) }, (_, offset) => rows[(sent + offset) % rows.length]!);
    await ch.client.insert({ table: 'events_v1', columns: [...SPOOL_COLUMNS], values, format: 'JSONCompactEachRow' });
  }
  return total / ((performance.now() - started) / 1000);
}

async function countPublisher(ch: ClickHouse, publisherId: string): Promise<number> {
  const result = await ch.client.query({
    query: 'SELECT toUInt64(count()) AS stored FROM events_v1 WHERE publisher_id = {publisher_id:UUID}',
    query_params: { publisher_id: publisherId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ stored: number | string }>();
  return Number(row?.stored ?? 0);
}

/** Rows generated inside ClickHouse, written through the same table and views: the engine's own ceiling. */
async function timeEngineInsert(ch: ClickHouse, total: number): Promise<number> {
  const ids = Array.from({ length: 100 }, () => randomUUID());
  const today = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z').getTime();
  const started = performance.now();
  await generateEvents(ch, { campaignIds: ids, lineItemIds: ids, events: total, todayMs: today - DAY_MS, serveIdPrefix: 'ingest-engine-' });
  return total / ((performance.now() - started) / 1000);
}
