/**
 * A process that leaves DATA_DIR's embedded ClickHouse holding events in many parts, as a service
 * that ran for a while does: `inserts` flushes of 10 events each (every flush a part in events_v1
 * and in each of its views), today's spend among them.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { sampleEvent } from './sampleEvent.js';

const [dataDir, inserts] = [process.argv[2]!, Number(process.argv[3])];
const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
const ch = await openMigratedClickHouse(dataDir);
const events = await createClickHouseEventPipeline({ config, ch, log: pino({ level: 'silent' }) });
for (let insert = 0; insert < inserts; insert += 1) {
  events.accept(Array.from({ length: 10 }, () => sampleEvent()));
  await events.flush();
}
await events.close();
await ch.close();
