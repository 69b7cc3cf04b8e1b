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

// rev38 F3: a request's retry (the same conversion_id, a keyed import resent) tried the refused write
// whatever its delay, and each refusal counted: a client retrying six times in a row quarantined it
// in six requests, instead of the pipeline's own tries spaced from EVENT_FLUSH_INTERVAL_MS doubling.
const silent = pino({ level: 'silent' });
const { ch } = embeddedClickHouseForTest('refused-pace-');

it("a refused write's retries before its next try is due are tried but not counted toward its quarantine", async () => {
  const campaignId = randomUUID();
  // Refused for its rows (throwIf's own code): each counted try is one of the 6 that quarantine it.
  const refusing = await refusingView(ch, { label: 'pace', campaigns: [campaignId], deduplicationWindow: 100 });
  const pipelineDir = tempDirectory('refused-pace-pipeline-');
  // The next try is due a minute after the refusal: every retry below comes before it.
  const pipeline = await createClickHouseEventPipeline({ config: loadConfig({ DATA_DIR: pipelineDir, EVENT_FLUSH_INTERVAL_MS: '60000' }), ch, log: silent });
  onTestFinished(() => pipeline.close());
  const conversion = sampleEvent({ campaign_id: campaignId, type: 'conversion' });
  await expect(pipeline.writeNow([conversion], `conversion:${conversion.event_id}`)).rejects.toThrow(ApiError);
  const failedWrites = () => readdirSync(path.join(pipelineDir, 'spool')).filter((file) => file.endsWith('.failed-write'));
  expect(failedWrites()).toHaveLength(1);

  // Six quick retries of the client: each is tried (503 while refused), none quarantines it.
  for (let retry = 1; retry <= 6; retry += 1) {
    await expect(pipeline.completeRefusedWrites([conversion.event_id]), `retry ${retry}`).rejects.toThrow(ApiError);
  }
  expect({ quarantined: pipeline.stats().quarantinedWrites, kept: failedWrites().length }).toEqual({ quarantined: 0, kept: 1 });

  // Tried at once all the same: the retry after the view is repaired completes it, no waiting for its delay.
  await refusing.accept();
  await pipeline.completeRefusedWrites([conversion.event_id]);
  expect(failedWrites()).toEqual([]);
  const [row] = await (
    await ch.client.query({
      query: `SELECT toUInt64(count()) AS events, (SELECT toUInt64(count()) FROM ${refusing.sink} WHERE campaign_id = {id:UUID}) AS in_view FROM events_v1 WHERE campaign_id = {id:UUID}`,
      query_params: { id: campaignId },
      format: 'JSONEachRow',
    })
  ).json<{ events: string | number; in_view: string | number }>();
  expect({ events: Number(row!.events), inView: Number(row!.in_view) }).toEqual({ events: 1, inView: 1 });
});
