/**
 * A process that accepts events as fast as it can and says on stdout how many were acknowledged
 * (accept() returned), so that a test can kill -9 it mid-load and check that none of those is lost.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { sampleEvent } from './sampleEvent.js';

const dataDir = process.argv[2]!;
const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_ROWS: '500', EVENT_FLUSH_INTERVAL_MS: '20' });
const ch = await openMigratedClickHouse(dataDir);
const events = await createClickHouseEventPipeline({ config, ch, log: pino({ level: 'silent' }) });
const campaignId = randomUUID();
let acknowledged = 0;

function acceptSome(): void {
  events.accept(Array.from({ length: 10 }, () => sampleEvent({ campaign_id: campaignId })));
  acknowledged += 10;
  process.stdout.write(`ack ${campaignId} ${acknowledged}\n`);
  setImmediate(acceptSome);
}
acceptSome();
