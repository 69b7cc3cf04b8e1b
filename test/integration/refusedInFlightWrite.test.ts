import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { spoolLine } from '../../src/tracking/eventSpool.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { embeddedClickHouseForTest } from '../helpers/embeddedClickHouseForTest.js';
import { refusingView } from '../helpers/refusingView.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

// rev38 F3: an insert a crash left in flight that ClickHouse refuses every time with a code about
// now, not its rows (a view over its memory limit on those rows: MEMORY_LIMIT_EXCEEDED), was never
// quarantined and went before the segments in every round: the spool's own accepted events were
// never written, the backlog grew to EVENT_BUFFER_MAX_ROWS and every pixel and click answered 503.
const { ch } = embeddedClickHouseForTest('refused-in-flight-');

async function count(query: string, id: string): Promise<number> {
  const [row] = await (await ch.client.query({ query, query_params: { id }, format: 'JSONEachRow' })).json<{ n: string | number }>();
  return Number(row!.n);
}

it("a crash's in-flight insert ClickHouse keeps refusing 'for now' is set aside: the spool's events are written past it, and it is stored once when ClickHouse takes it", async () => {
  const campaignId = randomUUID();
  // 241 is MEMORY_LIMIT_EXCEEDED: a view that needs more memory than its limit for this body, every time.
  const refusing = await refusingView(ch, { label: 'in_flight', campaigns: [campaignId], code: 241, deduplicationWindow: 100 });
  const pipelineDir = tempDirectory('refused-in-flight-pipeline-');
  const spoolDir = path.join(pipelineDir, 'spool');
  mkdirSync(spoolDir, { recursive: true });
  // As a kill -9 during a conversion's insert leaves it: the body, then the token.
  const conversion = sampleEvent({ campaign_id: campaignId, type: 'conversion' });
  writeFileSync(path.join(spoolDir, `${Date.now().toString().padStart(15, '0')}-000000000000.in-flight`), `${spoolLine(conversion)}${JSON.stringify(`conversion:${conversion.event_id}`)}\n`);
  const logLines: Array<{ msg: string; file?: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line) as { msg: string; file?: string }) });
  const pipeline = await createClickHouseEventPipeline({ config: loadConfig({ DATA_DIR: pipelineDir, EVENT_FLUSH_INTERVAL_MS: '100' }), ch, log });
  onTestFinished(() => pipeline.close());
  expect(pipeline.pending()).toBe(1);

  const live = randomUUID();
  pipeline.accept([sampleEvent({ campaign_id: live })]);
  const liveRows = () => count('SELECT toUInt64(count()) AS n FROM events_v1 WHERE campaign_id = {id:UUID}', live);
  await eventually(
    async () => {
      await pipeline.flush().catch(() => undefined);
      return (await liveRows()) === 1 ? true : undefined;
    },
    'an event accepted after the start to be written past the refused insert',
    30_000,
    100,
  );
  // Nothing counts as unwritten any more: the conversion left `unwritten` as the first the counters
  // recorded, so pacing's "the last `unwritten` are not in ClickHouse" stays true of the rest.
  expect(pipeline.pending()).toBe(0);
  expect(await pipeline.readBetweenWrites(async (unwritten) => unwritten)).toBe(0);
  // Still accepted and not in ClickHouse: /healthz's event_backlog and adsvc_event_backlog_rows count it
  // (they said 0 before), as set aside: its age, from before the crash, does not fail /healthz (rev40 R7).
  const stats = pipeline.stats();
  expect(stats.backlogRows).toBe(1);
  expect(stats.setAsideRows).toBe(1);
  // Not quarantined ("for now" code), not forgotten: still kept as a crash's insert.
  expect(pipeline.stats().quarantinedWrites).toBe(0);
  expect(readdirSync(spoolDir).filter((file) => file.endsWith('.in-flight'))).toHaveLength(1);

  // The view is repaired: the set-aside insert is written at its next try, with its token, once.
  await refusing.accept();
  await eventually(
    async () => {
      await pipeline.flush().catch(() => undefined);
      return readdirSync(spoolDir).some((file) => file.endsWith('.in-flight')) ? undefined : true;
    },
    'the set-aside insert to be written',
    90_000,
    250,
  );
  expect({
    events: await count("SELECT toUInt64(count()) AS n FROM events_v1 WHERE campaign_id = {id:UUID} AND type = 'conversion'", campaignId),
    rolledUp: await count('SELECT toUInt64(sum(conversions)) AS n FROM daily_stats_v1 WHERE campaign_id = {id:UUID}', campaignId),
    inView: await count(`SELECT toUInt64(count()) AS n FROM ${refusing.sink} WHERE campaign_id = {id:UUID}`, campaignId),
  }).toEqual({ events: 1, rolledUp: 1, inView: 1 });
  expect(pipeline.stats()).toMatchObject({ written: 2, quarantinedWrites: 0, backlogRows: 0 });
  // Its refusals, the same every time, were logged once (and at every 10th try), not at each of the
  // flushes that tried it every 100 ms while it was ahead of the segments (about 40 lines before).
  const file = logLines.find((line) => line.msg.startsWith('ClickHouse keeps refusing'))?.file;
  expect(file).toBeDefined();
  const refusals = logLines.filter((line) => line.file === file && line.msg.startsWith('ClickHouse refused again'));
  expect(refusals.length).toBeGreaterThanOrEqual(1);
  expect(refusals.length).toBeLessThanOrEqual(3);
  expect(logLines.some((line) => line.file === file && line.msg.startsWith('ClickHouse took at last'))).toBe(true);
}, 180_000);
