/**
 * A process that writes one CPA conversion at once (EventPipeline.writeNow, as a conversion with a
 * conversion_id is) and exits, or with `read`, only starts the pipeline (which finishes what a
 * crashed run left) and prints what events_v1 bills the line item and what pacing counts of it. A
 * test runs the writer under strace to kill -9 it at one exact step of ClickHouse's commit.
 * With `unanswered <port>`, the write goes to a ClickHouse server at 127.0.0.1:<port> that never
 * answers, so a test can kill -9 the process while the insert waits (no embedded engine is opened).
 * `schema refusing` adds a constraint to events_v1 that refuses the conversion (so its insert is
 * refused before any table holds it), which `refused` writes and expects refused; `read` drops it.
 */
import pino from 'pino';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { loadConfig } from '../../src/config.js';
import { SpendPacing } from '../../src/serving/spendPacing.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { openMigratedClickHouse } from './migratedClickHouse.js';
import { sampleEvent } from './sampleEvent.js';
import { settleParts } from './settledParts.js';

const LINE_ITEM_ID = '0b6f3c1e-6a59-4f0e-9d0a-2f1f0c1d2e3f';
const EVENT_ID = '5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

const [dataDir, mode, port] = [process.argv[2]!, process.argv[3], process.argv[4]];
const REFUSING = 'refuse_conversion';
const config = loadConfig({ DATA_DIR: dataDir, EVENT_FLUSH_INTERVAL_MS: '60000' });
const ch = mode === 'unanswered' ? unansweredServer() : await openMigratedClickHouse(dataDir);
// The writer's renames must be its conversion's only (the test kills it at the n-th): a migration's
// mutation (0017 drops a column) and the merge of the migrations' parts are finished here, not
// during the writer's run.
if (mode === 'schema') await settleParts(ch);
if (mode === 'schema' && port === 'refusing') {
  await ch.client.command({ query: `ALTER TABLE events_v1 ADD CONSTRAINT ${REFUSING} CHECK event_id != '${EVENT_ID}'` });
}
if (mode === 'read') await ch.client.command({ query: `ALTER TABLE events_v1 DROP CONSTRAINT IF EXISTS ${REFUSING}` });
const events = await createClickHouseEventPipeline({ config, ch, log: pino({ level: 'silent' }) });
if (mode === 'write' || mode === 'unanswered' || mode === 'refused') {
  const conversion = sampleEvent({ event_id: EVENT_ID, type: 'conversion', source: 'conversion_api', line_item_id: LINE_ITEM_ID, price_model: 'CPA', cost_nanos: 828_000_000, price_nanos: 828_000_000 });
  try {
    await events.writeNow([conversion], `conversion:${EVENT_ID}`);
    process.stdout.write('written\n');
  } catch (error) {
    if (mode !== 'refused') throw error;
    process.stdout.write('refused\n');
  }
}
await events.close();
if (mode === 'read') {
  const value = async (query: string) => {
    const [row] = await (await ch.client.query({ query: `SELECT toInt64(${query}) AS value`, format: 'JSONEachRow' })).json<{ value: string | number }>();
    return Number(row!.value);
  };
  const pacing = new SpendPacing(ch, { readBetweenWrites: (read) => read(0) });
  const counter = pacing.counterFor(LINE_ITEM_ID);
  await pacing.sync();
  const held = {
    conversions: await value('(SELECT count() FROM events_v1)'),
    billedNanos: await value('(SELECT sum(cost_nanos) FROM events_v1)'),
    dailySpendNanos: await value('(SELECT sum(spend_nanos) FROM daily_stats_v1)'),
    pacingNanos: counter.nanos,
    pacingLifetimeNanos: counter.lifetimeNanos,
  };
  process.stdout.write(`held ${JSON.stringify(held)}\n`);
}
await ch.close();

function unansweredServer() {
  const client = createClient({ url: `http://127.0.0.1:${port}`, request_timeout: 600_000, log: { level: ClickHouseLogLevel.OFF } });
  return { client, kind: 'server' as const, close: () => client.close() };
}
