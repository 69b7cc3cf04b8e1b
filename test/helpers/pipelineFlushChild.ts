/**
 * A process that accepts `count` events (saying on stdout how many were acknowledged), writes them
 * and whatever a crashed run left in the spool to ClickHouse, and prints what the tables then hold.
 * With a count of 0 it only brings the schema up to date and replays the spool; with `settle` after
 * the count, it also leaves no merge or mutation pending (after its writes, before its reads). A
 * test runs it under strace to kill -9 it at one exact step of ClickHouse's commit of a part.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { sampleEvent } from './sampleEvent.js';
import { settleParts } from './settledParts.js';

const [dataDir, count, settle] = [process.argv[2]!, Number(process.argv[3]), process.argv[4] === 'settle'];
// One segment, written by the flush below.
const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
const ch = await openMigratedClickHouse(dataDir);
const events = await createClickHouseEventPipeline({ config, ch, log: pino({ level: 'silent' }) });
for (let acknowledged = 10; acknowledged <= count; acknowledged += 10) {
  events.accept(Array.from({ length: 10 }, () => sampleEvent()));
  process.stdout.write(`ack ${acknowledged}\n`);
}
await events.flush();
await events.close();
// A schema's run leaves no merge or mutation for a crashing run's renames to meet. Never the run
// that reads back after a crash: merging with FINAL could collapse an event stored twice.
if (settle) await settleParts(ch);

async function value(query: string): Promise<number> {
  const [row] = await (await ch.client.query({ query: `SELECT toUInt64(${query}) AS value`, format: 'JSONEachRow' })).json<{ value: string | number }>();
  return Number(row!.value);
}
const tables = await (
  await ch.client.query({ query: `SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'`, format: 'JSONEachRow' })
).json<{ name: string }>();
const rows: Record<string, number> = {};
for (const { name } of tables) rows[name] = await value(`(SELECT count() FROM ${name})`);
const held = {
  events: rows.events_v1,
  distinctEvents: await value('(SELECT uniqExact(event_id) FROM events_v1)'),
  dailyImpressions: await value('(SELECT sum(impressions) FROM daily_stats_v1)'),
  campaignImpressions: await value('(SELECT sum(impressions) FROM campaign_daily_stats_v1)'),
  serveEvents: rows.serve_events_v1,
  rows,
};
process.stdout.write(`held ${JSON.stringify(held)}\n`);
await ch.close();
