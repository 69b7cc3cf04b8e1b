import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { spoolLine } from '../../src/tracking/eventSpool.js';
import { completeQuarantinedWrites } from '../../src/tracking/quarantinedWrite.js';
import { completeQuarantine } from '../../src/cli/quarantineCommand.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { eventually } from '../helpers/eventually.js';
import { embeddedClickHouseForTest } from '../helpers/embeddedClickHouseForTest.js';
import { refusingView, type RefusingViewOptions } from '../helpers/refusingView.js';
import { tempDirectory } from '../helpers/tempDirectory.js';

// `adsvc quarantine complete` (docs/failure-modes.md): a write the pipeline quarantined, its rows in
// events_v1 and in no view, is completed once the cause is fixed, whatever the number of inserts
// since (moved back into the spool past the token window, it was stored and billed twice: rev38 F2).
const silent = pino({ level: 'silent' });
const { ch, dataDir } = embeddedClickHouseForTest('quarantine-complete-');

const COST = 800_000_000;

async function figures(campaignId: string, lineItemId: string, sink: string, heldSink = sink) {
  const [row] = await (
    await ch.client.query({
      query: `SELECT
                (SELECT toUInt64(count()) FROM events_v1 WHERE campaign_id = {c:UUID}) AS events,
                (SELECT sum(cost_nanos) FROM events_v1 WHERE campaign_id = {c:UUID}) AS billed,
                (SELECT sum(conversions) FROM daily_stats_v1 WHERE campaign_id = {c:UUID}) AS daily_conversions,
                (SELECT sum(spend_nanos) FROM daily_stats_v1 WHERE campaign_id = {c:UUID}) AS daily_spend,
                (SELECT sum(spend_nanos) FROM campaign_daily_stats_v1 WHERE campaign_id = {c:UUID}) AS campaign_spend,
                (SELECT sum(spend_nanos) FROM campaign_hourly_stats_v1 WHERE campaign_id = {c:UUID}) AS hourly_spend,
                (SELECT sum(spend_nanos) FROM line_item_spend_v1 WHERE line_item_id = {l:UUID}) AS line_item_spend,
                (SELECT sum(conversions) FROM campaign_dimension_daily_v1 WHERE campaign_id = {c:UUID} AND dimension = 'line_item') AS breakdown_conversions,
                (SELECT toUInt64(count()) FROM ${sink} WHERE campaign_id = {c:UUID}) AS in_fixed_view,
                (SELECT toUInt64(count()) FROM ${heldSink} WHERE campaign_id = {c:UUID}) AS in_held_view`,
      query_params: { c: campaignId, l: lineItemId },
      format: 'JSONEachRow',
    })
  ).json<Record<string, string | number>>();
  return Object.fromEntries(Object.entries(row!).map(([name, value]) => [name, Number(value)]));
}

/** What the audit export (events_v1) says of one conversion: every report must say the same, once. */
const once = { events: 1, billed: COST, daily_conversions: 1, daily_spend: COST, campaign_spend: COST, hourly_spend: COST, line_item_spend: COST, breakdown_conversions: 1, in_fixed_view: 1, in_held_view: 1 };

/**
 * A conversion of a fresh campaign that a view refuses (by its query, or by a constraint of its
 * target), quarantined after its six refusals; `repair` is the operator's fix. `held` is a second
 * view of the test's whose target holds the conversion already, as the views ClickHouse reached
 * before the refusing one on a try do.
 */
async function quarantinedConversion(label: string, refusedBy: RefusingViewOptions['refusedBy'] = 'query') {
  const campaignId = randomUUID();
  const name = `${label}_${campaignId.replaceAll('-', '')}`;
  const refusing = await refusingView(ch, { label: 'q', campaigns: [campaignId], refusedBy, withCost: true });
  const pipelineDir = tempDirectory('quarantine-complete-pipeline-');
  // A short interval: only a try that is due counts toward the quarantine (refusedAgain), and the
  // delays double from it (20, 40, ... ms: six refusals within a second or so).
  const pipeline = await createClickHouseEventPipeline({ config: loadConfig({ DATA_DIR: pipelineDir, EVENT_FLUSH_INTERVAL_MS: '20' }), ch, log: silent });
  const conversion = sampleEvent({ campaign_id: campaignId, type: 'conversion', cost_nanos: COST });
  await expect(pipeline.writeNow([conversion], `conversion:${conversion.event_id}`)).rejects.toThrow();
  const quarantine = path.join(pipelineDir, 'quarantine');
  // Polled: the retries count only once due, so the quarantine comes after the delays, not after N tries.
  const file = await eventually(async () => {
    await pipeline.completeRefusedWrites([conversion.event_id]).catch(() => undefined);
    return existsSync(quarantine) ? readdirSync(quarantine)[0] : undefined;
  }, 'the refused conversion quarantined', 30_000);
  expect(file).toMatch(/\.failed-write$/);
  const heldSink = `q_held_${name}`;
  await ch.client.command({ query: `CREATE TABLE ${heldSink} (campaign_id UUID, cost_nanos Int64) ENGINE = MergeTree ORDER BY campaign_id` });
  await ch.client.command({ query: `INSERT INTO ${heldSink} SELECT campaign_id, cost_nanos FROM events_v1 WHERE campaign_id = {c:UUID}`, query_params: { c: campaignId } });
  await ch.client.command({ query: `CREATE MATERIALIZED VIEW q_held_mv_${name} TO ${heldSink} AS SELECT campaign_id, cost_nanos FROM events_v1` });
  return {
    campaignId,
    lineItemId: conversion.line_item_id,
    sink: refusing.sink,
    heldSink,
    view: refusing.view,
    quarantine,
    file: file!,
    pipeline,
    repair: refusing.accept,
  };
}

describe('adsvc quarantine complete', () => {
  it('stores a quarantined conversion once in every view when more inserts than the token window came since, and a second run changes nothing', async () => {
    const write = await quarantinedConversion('window');
    // Before: billed in events_v1, not in the refusing view (and in those ClickHouse reached before it on a try).
    expect(await figures(write.campaignId, write.lineItemId, write.sink, write.heldSink)).toMatchObject({ events: 1, billed: COST, in_fixed_view: 0 });
    // More inserts than the window (10,000 in production, 3 here) reach events_v1 and the views.
    const windowed = ['events_v1', 'daily_stats_v1', 'campaign_daily_stats_v1', 'campaign_hourly_stats_v1', 'line_item_spend_v1', 'campaign_dimension_daily_v1'];
    for (const table of windowed) await ch.client.command({ query: `ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 3` });
    try {
      for (let i = 0; i < 4; i++) {
        const other = sampleEvent({ campaign_id: randomUUID(), type: 'conversion' });
        await write.pipeline.writeNow([other], `conversion:${other.event_id}`);
      }
      await write.pipeline.close();
      await write.repair();

      const first = await completeQuarantinedWrites(ch, write.quarantine, [write.file]);
      expect(first.writes).toMatchObject([{ done: 'its rows in events_v1 given to the views' }]);
      expect(first.filled).toContain(write.view);
      expect(first.complete).toContain(`q_held_mv_window_${write.campaignId.replaceAll('-', '')}`);
      expect(await figures(write.campaignId, write.lineItemId, write.sink, write.heldSink)).toEqual(once);
      expect(existsSync(path.join(write.quarantine, write.file))).toBe(false);
      expect(existsSync(path.join(write.quarantine, 'completed', write.file))).toBe(true);

      const second = await completeQuarantinedWrites(ch, write.quarantine, [write.file]);
      expect(second).toMatchObject({ writes: [{ done: 'already completed' }], filled: [] });
      expect(await figures(write.campaignId, write.lineItemId, write.sink, write.heldSink)).toEqual(once);
    } finally {
      for (const table of windowed) await ch.client.command({ query: `ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 10000` });
    }
  });

  it('a run stopped midway (here by the target of a view still refusing) is completed by the next run without filling a view twice', async () => {
    const write = await quarantinedConversion('midway', 'target');
    await write.pipeline.close();
    // A view that lacks the conversion and comes before the refusing one (by name), whatever the
    // views ClickHouse reached on the pipeline's tries.
    const lateSink = `a_late_${write.campaignId.replaceAll('-', '')}`;
    await ch.client.command({ query: `CREATE TABLE ${lateSink} (campaign_id UUID, cost_nanos Int64) ENGINE = MergeTree ORDER BY campaign_id` });
    await ch.client.command({ query: `CREATE MATERIALIZED VIEW ${lateSink}_mv TO ${lateSink} AS SELECT campaign_id, cost_nanos FROM events_v1` });
    // Run before the fix: the views before the refusing one (by name) are filled, then it stops.
    await expect(completeQuarantinedWrites(ch, write.quarantine, [write.file])).rejects.toThrow(/refused/);
    const journal = JSON.parse(readFileSync(path.join(write.quarantine, 'completing', 'plan.json'), 'utf8')) as { filled: string[] };
    expect(journal.filled).toContain(`${lateSink}_mv`);
    expect(existsSync(path.join(write.quarantine, write.file))).toBe(true);

    await write.repair();
    const rerun = await completeQuarantinedWrites(ch, write.quarantine, [write.file]);
    expect(rerun.filled).toContain(write.view);
    expect(rerun.filled.filter((view) => journal.filled.includes(view))).toEqual([]);
    expect(await figures(write.campaignId, write.lineItemId, write.sink, write.heldSink)).toEqual(once);
    expect(await figures(write.campaignId, write.lineItemId, lateSink)).toMatchObject({ in_fixed_view: 1 });
    expect(existsSync(path.join(write.quarantine, 'completing', 'plan.json'))).toBe(false);
  });

  it('says a view not built from all of events_v1 must be dropped, completed without, and created again, and leaves no empty completing/ behind', async () => {
    const write = await quarantinedConversion('unbuilt');
    // The view repaired the wrong way: dropped, an event of the campaign stored meanwhile, created
    // again without a backfill, so its target lacks more than the quarantined conversion.
    await ch.client.command({ query: `DROP VIEW ${write.view}` });
    const earlier = sampleEvent({ campaign_id: write.campaignId, line_item_id: write.lineItemId, type: 'impression' });
    await write.pipeline.writeNow([earlier], `impression:${earlier.event_id}`);
    await write.pipeline.close();
    await ch.client.command({ query: `CREATE MATERIALIZED VIEW ${write.view} TO ${write.sink} AS SELECT campaign_id, cost_nanos FROM events_v1` });

    await expect(completeQuarantinedWrites(ch, write.quarantine, [write.file])).rejects.toThrow(
      new RegExp(`the targets of [^:]*${write.view}[^:]* differ .* not built from all of events_v1 .* drop that view, complete, then create it again`),
    );
    expect(existsSync(path.join(write.quarantine, write.file))).toBe(true);
    expect(existsSync(path.join(write.quarantine, 'completing'))).toBe(false);

    // The way out the message gives.
    await ch.client.command({ query: `DROP VIEW ${write.view}` });
    expect(await completeQuarantinedWrites(ch, write.quarantine, [write.file])).toMatchObject({ writes: [{ done: 'its rows in events_v1 given to the views' }] });
    expect(existsSync(path.join(write.quarantine, 'completing'))).toBe(false);
  });

  it('inserts whole, with its token, a quarantined write events_v1 does not hold', async () => {
    const campaignId = randomUUID();
    const sink = `q_sink_absent_${campaignId.replaceAll('-', '')}`;
    await ch.client.command({ query: `CREATE TABLE ${sink} (campaign_id UUID, cost_nanos Int64) ENGINE = MergeTree ORDER BY campaign_id` });
    await ch.client.command({ query: `CREATE MATERIALIZED VIEW q_mv_absent_${campaignId.replaceAll('-', '')} TO ${sink} AS SELECT campaign_id, cost_nanos FROM events_v1` });
    const conversion = sampleEvent({ campaign_id: campaignId, type: 'conversion', cost_nanos: COST });
    const quarantine = path.join(tempDirectory('quarantine-complete-absent-'), 'quarantine');
    mkdirSync(quarantine);
    // A crash's in-flight insert, as the quarantine keeps it: its body, then its token line.
    const file = `${Date.now().toString().padStart(15, '0')}-0123456789ab.in-flight`;
    writeFileSync(path.join(quarantine, file), `${spoolLine(conversion)}${JSON.stringify(`conversion:${conversion.event_id}`)}\n`);

    expect(await completeQuarantinedWrites(ch, quarantine, [file])).toMatchObject({ writes: [{ done: 'inserted into events_v1 and its views' }] });
    expect(await figures(campaignId, conversion.line_item_id, sink)).toEqual(once);
    expect(await completeQuarantinedWrites(ch, quarantine, [file])).toMatchObject({ writes: [{ done: 'already completed' }] });
    expect(await figures(campaignId, conversion.line_item_id, sink)).toEqual(once);
  });

  it('refuses, with the reason, while another process (the service) has the embedded ClickHouse of DATA_DIR open', async () => {
    await expect(completeQuarantine(loadConfig({ DATA_DIR: dataDir }), ['000-none.failed-write'])).rejects.toThrow(/stop `adsvc serve` on this DATA_DIR first/);
  });
});
