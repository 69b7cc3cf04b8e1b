import { readdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { ApiError } from '../../src/http/errors.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { embeddedClickHouseForTest } from '../helpers/embeddedClickHouseForTest.js';
import { refusingView } from '../helpers/refusingView.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

// Two completions of the same refused write at once (the drain's and a request's retry, or two
// retries of one client) share one try: before, both passed `refused.includes(write)` before their
// awaits and the second spliced refused.indexOf(write) = -1, i.e. the LAST refused write, another
// conversion's, which was then never sent again (until a restart) while events_v1 held it and its
// retry answered "stored" (rev38 F1).
const silent = pino({ level: 'silent' });
const { ch } = embeddedClickHouseForTest('refused-twice-');

it('completing one refused write twice at once leaves every other refused write to be completed', async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const refusing = await refusingView(ch, { label: 'race', campaigns: [a, b], deduplicationWindow: 100 });
  const pipelineDir = tempDirectory('refused-twice-pipeline-');
  const pipeline = await createClickHouseEventPipeline({ config: loadConfig({ DATA_DIR: pipelineDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch, log: silent });
  onTestFinished(() => pipeline.close());
  const first = sampleEvent({ campaign_id: a, type: 'conversion' });
  const second = sampleEvent({ campaign_id: b, type: 'conversion' });
  await expect(pipeline.writeNow([first], `conversion:${first.event_id}`)).rejects.toThrow(ApiError);
  await expect(pipeline.writeNow([second], `conversion:${second.event_id}`)).rejects.toThrow(ApiError);
  // The view is repaired.
  await refusing.accept();

  // The first conversion's retry arrives twice at once (or once while the drain completes it).
  await Promise.all([pipeline.completeRefusedWrites([first.event_id]), pipeline.completeRefusedWrites([first.event_id])]);
  // The second conversion's retry: its write must be completed now, its row reaching the view.
  await pipeline.completeRefusedWrites([second.event_id]);

  const inSink = async (id: string) =>
    Number((await (await ch.client.query({ query: `SELECT toUInt64(count()) AS n FROM ${refusing.sink} WHERE campaign_id = {id:UUID}`, query_params: { id }, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);
  expect({ first: await inSink(a), second: await inSink(b) }).toEqual({ first: 1, second: 1 });
  expect(readdirSync(path.join(pipelineDir, 'spool')).filter((name) => name.endsWith('.failed-write'))).toEqual([]);
});
