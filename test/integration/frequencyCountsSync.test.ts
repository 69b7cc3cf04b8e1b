import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { FrequencyCounts } from '../../src/serving/frequencyCounts.js';
import { testStores } from '../helpers/testApp.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

let ch: ClickHouse;
beforeAll(async () => {
  ch = (await testStores()).stores.ch;
});

const HOUR_MS = 3_600_000;
// Wednesday 2026-11-25 15:30 UTC: the week's window starts on Monday the 23rd at 00:00.
const NOW = Date.UTC(2026, 10, 25, 15, 30);
const at = (day: number, hour: number) => Date.UTC(2026, 10, day, hour);

/** Rows as the materialized view writes them from valid impressions. */
async function written(lineItemId: string, rows: Array<[userKey: string, hourMs: number, impressions: number]>) {
  await ch.client.insert({
    table: 'frequency_hours_v1',
    values: rows.map(([user_key, hourMs, impressions]) => ({ line_item_id: lineItemId, user_key, hour: hourMs / 1000, impressions })),
    format: 'JSONEachRow',
    clickhouse_settings: { insert_deduplication_token: randomUUID() },
  });
}

describe('frequency counts: what a sync reads', () => {
  it("adds the window's earlier hours, read once an hour, to the recent hours, read at every sync", async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [
      ['alice', at(22, 23), 5], // Sunday: the week before
      ['alice', at(23, 10), 2], // Monday: settled
      ['alice', at(25, 15), 1], // this hour
      ['bob', at(25, 14), 1], // the hour before: still recent
    ]);
    const frequency = new FrequencyCounts(ch, { readBetweenWrites: (read) => read(0) });
    const counts = frequency.countsFor(lineItemId, 'week').impressions;
    await frequency.sync(NOW);
    expect(Object.fromEntries(counts)).toEqual({ alice: 3, bob: 1 });

    await written(lineItemId, [
      ['alice', at(25, 15), 1],
      ['bob', at(24, 9), 4], // written late, into an hour already settled
    ]);
    await frequency.sync(NOW + 1000);
    expect(Object.fromEntries(counts)).toEqual({ alice: 4, bob: 1 });

    // The hour turned: the settled hours are read again, the late write with them.
    await frequency.sync(NOW + HOUR_MS);
    expect(Object.fromEntries(counts)).toEqual({ alice: 4, bob: 5 });
  });

  it('counts only the clock hour for an hourly cap', async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [
      ['carol', at(25, 14), 3],
      ['carol', at(25, 15), 2],
    ]);
    const frequency = new FrequencyCounts(ch, { readBetweenWrites: (read) => read(0) });
    const counts = frequency.countsFor(lineItemId, 'hour').impressions;
    await frequency.sync(NOW);
    expect(Object.fromEntries(counts)).toEqual({ carol: 2 });
    await frequency.sync(NOW + HOUR_MS);
    expect(Object.fromEntries(counts)).toEqual({});
  });

  it('counts an accepted impression at once, and once only before and after ClickHouse has it', async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [['dave', at(23, 8), 2]]);
    let pending = 0;
    const frequency = new FrequencyCounts(ch, { readBetweenWrites: (read) => read(pending) });
    const counts = frequency.countsFor(lineItemId, 'week').impressions;
    await frequency.sync(NOW);
    expect(counts.get('dave')).toBe(2);

    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'dave', event_time: NOW + 1000 }));
    pending = 1;
    expect(counts.get('dave')).toBe(3);
    await frequency.sync(NOW + 2000);
    expect(counts.get('dave')).toBe(3);

    await written(lineItemId, [['dave', at(25, 15), 1]]);
    pending = 0;
    await frequency.sync(NOW + 3000);
    expect(counts.get('dave')).toBe(3);
    await frequency.sync(NOW + HOUR_MS);
    expect(counts.get('dave')).toBe(3);
  });

  it('keeps a spooled impression counted when a conversion written at once to ClickHouse follows it', async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [['erin', at(23, 8), 2]]);
    let pending = 0;
    const frequency = new FrequencyCounts(ch, { readBetweenWrites: (read) => read(pending) });
    const counts = frequency.countsFor(lineItemId, 'week').impressions;
    await frequency.sync(NOW);

    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'erin', event_time: NOW + 1000 }));
    pending = 1;
    // A conversion EventPipeline.writeNow stored: in ClickHouse, never pending.
    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'erin', type: 'conversion', event_time: NOW + 1500 }), true);
    await frequency.sync(NOW + 2000);
    expect(counts.get('erin')).toBe(3);
  });

  it("judges a new window from its first serve or judgement by what is known of it, never by the old window's counts (try38 T4)", async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [['fred', at(25, 15), 1]]);
    let pending = 0;
    let reading: (() => void) | undefined;
    const paused = new Promise<void>((resolve) => (reading = resolve));
    let pause = false;
    const frequency = new FrequencyCounts(ch, {
      readBetweenWrites: async (read) => {
        if (pause) await paused;
        return read(pending);
      },
    });
    const counts = frequency.countsFor(lineItemId, 'hour').impressions;
    await frequency.sync(NOW);
    expect(Object.fromEntries(counts)).toEqual({ fred: 1 });
    // A sync that begins in the last second of the hour reads it while the hour turns.
    pause = true;
    const late = frequency.sync(at(25, 16) - 1);
    // The new hour's first serve (or billing judgement) starts it: fred's impression of 15:00 no longer counts.
    frequency.roll(at(25, 16) + 100);
    expect(Object.fromEntries(counts)).toEqual({});
    // This instance's impression of the new hour counts at once.
    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'fred', event_time: at(25, 16) + 200 }));
    pending = 1;
    expect(Object.fromEntries(counts)).toEqual({ fred: 1 });
    // The sync's reads of the old hour return: they do not judge the new one.
    reading!();
    await late;
    expect(Object.fromEntries(counts)).toEqual({ fred: 1 });
    // A clock stepped back into the old hour does not bring it back.
    frequency.roll(at(25, 16) - 1000);
    expect(Object.fromEntries(counts)).toEqual({ fred: 1 });
    // The next sync reads the new hour, the impression not in ClickHouse yet counted once.
    pause = false;
    await frequency.sync(at(25, 16) + 2000);
    expect(Object.fromEntries(counts)).toEqual({ fred: 1 });
  });

  it("starts a weekly cap's window on Monday 00:00 with this instance's impressions of it that ClickHouse does not have yet", async () => {
    const lineItemId = randomUUID();
    await written(lineItemId, [['gail', at(29, 20), 2]]); // Sunday the 29th
    let pending = 0;
    const frequency = new FrequencyCounts(ch, { readBetweenWrites: (read) => read(pending) });
    const counts = frequency.countsFor(lineItemId, 'week').impressions;
    const monday = at(30, 0);
    await frequency.sync(monday - 2000);
    expect(Object.fromEntries(counts)).toEqual({ gail: 2 });
    // Accepted in the last second of the week and the first of the next, not written yet.
    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'gail', event_time: monday - 500 }));
    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'hugo', event_time: monday - 400 }));
    pending = 2;
    expect(Object.fromEntries(counts)).toEqual({ gail: 3, hugo: 1 });
    frequency.roll(monday);
    expect(Object.fromEntries(counts)).toEqual({});
    frequency.record(sampleEvent({ line_item_id: lineItemId, user_key: 'hugo', event_time: monday + 300 }));
    pending = 3;
    expect(Object.fromEntries(counts)).toEqual({ hugo: 1 });
    await frequency.sync(monday + 2000);
    expect(Object.fromEntries(counts)).toEqual({ hugo: 1 });
  });
});
