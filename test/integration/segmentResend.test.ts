import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { spoolLine } from '../../src/tracking/eventSpool.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { embeddedClickHouseForTest } from '../helpers/embeddedClickHouseForTest.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

// A segment is sent again whole after a crash between its insert and its removal: its name is the
// insert's deduplication token, so ClickHouse drops the second send. The token names each block of an
// insert apart, and above about 65,000 rows (EVENT_FLUSH_ROWS over 65,000) an insert may be more than
// one block: sent again in the same form, the blocks and their ids are the same. In another form they
// are not (mig39; here, 66,000 impressions sent first as the INSERT ... FORMAT of releases before
// cabb580, then replayed by this one: 132,000 stored, with or without SETTINGS max_block_size on the
// file() select): docs/running-on-servers.md says to change release only after a SIGTERM.
const { ch } = embeddedClickHouseForTest('segment-resend-');

it('stores once a segment of 66,000 events sent again by the same release', async () => {
  const campaignId = randomUUID();
  const spoolDir = path.join(tempDirectory('segment-resend-pipeline-'), 'spool');
  mkdirSync(spoolDir, { recursive: true });
  const segment = `${Date.now().toString().padStart(15, '0')}-000000000000.jsonl`;
  let body = '';
  // Billable impressions: their segment's insert is the billed-once select (a window and a join).
  // That check does not drop the second send: each serve is counted by its own event, sent again.
  for (let i = 0; i < 66_000; i += 1) body += spoolLine(sampleEvent({ campaign_id: campaignId }));
  writeFileSync(path.join(spoolDir, segment), body);
  const kept = path.join(path.dirname(spoolDir), segment);
  copyFileSync(path.join(spoolDir, segment), kept);
  const stored = async () => {
    const [row] = await (
      await ch.client.query({ query: 'SELECT toUInt64(count()) AS n, toUInt64(uniqExact(event_id)) AS distinct FROM events_v1 WHERE campaign_id = {id:UUID}', query_params: { id: campaignId }, format: 'JSONEachRow' })
    ).json<{ n: string | number; distinct: string | number }>();
    return { rows: Number(row!.n), distinct: Number(row!.distinct) };
  };
  const config = loadConfig({ DATA_DIR: path.dirname(spoolDir), EVENT_FLUSH_ROWS: '70000' });
  for (let send = 1; send <= 2; send += 1) {
    // As a crash right after the insert leaves it: the segment still in the spool, replayed at start.
    if (send === 2) copyFileSync(kept, path.join(spoolDir, segment));
    const pipeline = await createClickHouseEventPipeline({ config, ch, log: pino({ level: 'silent' }) });
    await pipeline.flush();
    await pipeline.close();
    expect(readdirSync(spoolDir).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
    expect(await stored(), `send ${send}`).toEqual({ rows: 66_000, distinct: 66_000 });
  }
}, 180_000);
