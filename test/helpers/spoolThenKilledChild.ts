/**
 * A process that accepts the events of a JSON file into DATA_DIR's spool while ClickHouse cannot be
 * reached, so none is written, and says "spooled N" on stdout: a test then kills it -9, and the next
 * process on that DATA_DIR finds the spool as a crash leaves it.
 */
import { readFileSync } from 'node:fs';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';

const [dataDir, eventsFile] = process.argv.slice(2);
const config = loadConfig({ DATA_DIR: dataDir!, EVENT_FLUSH_INTERVAL_MS: '50' });
// Nothing listens on port 1: each write is refused, as by a ClickHouse that is down, and retried.
const client = createClient({ url: 'http://127.0.0.1:1', log: { level: ClickHouseLogLevel.OFF } });
const events = await createClickHouseEventPipeline({ config, ch: { client, kind: 'server', close: () => client.close() }, log: pino({ level: 'silent' }) });
const accepted = JSON.parse(readFileSync(eventsFile!, 'utf8')) as TrackedEvent[];
events.accept(accepted);
process.stdout.write(`spooled ${accepted.length}\n`);
setInterval(() => undefined, 60_000);
