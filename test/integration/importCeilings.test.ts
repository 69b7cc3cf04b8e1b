import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { trackedLineItem, type TrackedLineItem } from '../helpers/trackingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { earlierToday } from '../helpers/earlierToday.js';
import { IndexedDestinations } from '../../src/serving/indexedDestinations.js';
import { SpendPacing } from '../../src/serving/spendPacing.js';
import { ImportCeilings } from '../../src/tracking/importCeilings.js';
import { BillingCeiling } from '../../src/tracking/billingCeiling.js';
import { MS_PER_DAY, utcDay } from '../../src/utcDays.js';

/**
 * Imported events meet the billing ceilings live ones meet (docs/tracking.md, "Importing events"):
 * each valid line that costs something is judged against the spend of its own UTC day and month
 * and the lifetime spend, the file's earlier lines included; one over a ceiling is stored at cost 0
 * with the reason in `unbilled` (try37 H1: an import billed a line item 3.9x its lifetime budget).
 */
let ctx: TestContext;

beforeAll(async () => {
  ctx = await startTestApp();
});

afterAll(async () => {
  await ctx.close();
});

function importLines(lines: object[]) {
  return ctx.admin({
    method: 'POST',
    url: '/v1/admin/events/import',
    headers: { 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => JSON.stringify(line)).join('\n') + '\n',
  });
}

function line(item: TrackedLineItem, type: string, timeMs: number, index: number) {
  return { type, time: new Date(timeMs).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: `73.162.10.${10 + index}` };
}

async function billing(lineItemId: string): Promise<Array<{ day: string; cost_nanos: number; unbilled: string }>> {
  const result = await ctx.stores.ch.client.query({
    query: `SELECT toString(toDate(event_time)) AS day, toFloat64(cost_nanos) AS cost_nanos, unbilled
            FROM events_v1 WHERE line_item_id = {id:UUID} AND ivt = '' ORDER BY event_time, cost_nanos DESC`,
    query_params: { id: lineItemId },
    format: 'JSONEachRow',
  });
  return result.json();
}

describe('imported events and the billing ceilings', () => {
  it('bills a lifetime budget up to the last whole event that fits, the rest stored unbilled with the reason', async () => {
    // tCPM 3 USD: 0.003 USD an impression; lifetime 0.02 USD. The first import spends 0.009 of it.
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 3 }, { daily: 100, currency: 'USD' });
    const budget = await asAdvertiser(ctx, item.key)('PUT', `/v1/advertiser/line-items/${item.lineItemId}/budget`, { daily: 100, currency: 'USD', lifetime: 0.02 });
    expect(budget.statusCode).toBe(200);
    const now = earlierToday();
    expect((await importLines([0, 1, 2].map((i) => line(item, 'impression', now, i)))).json().data).toMatchObject({ accepted: 3, unbilled: 0 });

    const response = await importLines(Array.from({ length: 10 }, (_, i) => line(item, 'impression', now, 3 + i)));
    // Valid all the same: accepted, three of them billed (0.018 in all), seven over the lifetime budget.
    expect(response.json().data).toMatchObject({ accepted: 10, invalid: 0, rejected: 0, unbilled: 7 });
    const events = await billing(item.lineItemId);
    expect(events).toHaveLength(13);
    expect(events.filter((event) => event.cost_nanos === 3_000_000)).toHaveLength(6);
    const unbilled = events.filter((event) => event.unbilled !== '');
    expect(unbilled).toHaveLength(7);
    expect(unbilled.every((event) => event.unbilled === 'over_lifetime_budget' && event.cost_nanos === 0)).toBe(true);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(18_000_000);
  });

  it("judges each line against its own day's spend, past days too: twice the daily budget per day, the file's own lines counted in order", async () => {
    // CPC 1 USD, daily budget 2 USD: each UTC day bills at most 4 clicks.
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 1 }, { daily: 2, currency: 'USD' });
    const today = earlierToday();
    const pastDay = today - 3 * MS_PER_DAY;
    const lines = [
      ...Array.from({ length: 6 }, (_, i) => line(item, 'click', pastDay, i)),
      ...Array.from({ length: 3 }, (_, i) => line(item, 'click', today, 6 + i)),
    ];
    expect((await importLines(lines)).json().data).toMatchObject({ accepted: 9, unbilled: 2 });
    let events = await billing(item.lineItemId);
    const ofDay = (day: number) => events.filter((event) => event.day === new Date(day).toISOString().slice(0, 10));
    expect(ofDay(pastDay).map((event) => [event.cost_nanos, event.unbilled])).toEqual([
      [1e9, ''],
      [1e9, ''],
      [1e9, ''],
      [1e9, ''],
      [0, 'over_daily_budget'],
      [0, 'over_daily_budget'],
    ]);
    // Today is another day, with its own ceiling.
    expect(ofDay(today).every((event) => event.cost_nanos === 1e9 && event.unbilled === '')).toBe(true);

    // Another import of that past day reads its spend from the rollups: the day is at its ceiling.
    expect((await importLines([line(item, 'click', pastDay, 20)])).json().data).toMatchObject({ accepted: 1, unbilled: 1 });
    events = await billing(item.lineItemId);
    expect(ofDay(pastDay).filter((event) => event.unbilled === 'over_daily_budget')).toHaveLength(3);
    expect(events.reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(7e9);
  });

  it('judges keyed imports the same way, and a resend of the file does not count its stored lines twice', async () => {
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 1 }, { daily: 2, currency: 'USD' });
    const now = earlierToday();
    const lines = Array.from({ length: 3 }, (_, i) => line(item, 'click', now, i));
    const send = () =>
      ctx.admin({
        method: 'POST',
        url: '/v1/admin/events/import',
        headers: { 'content-type': 'application/x-ndjson', 'idempotency-key': `ceilings-${item.lineItemId}` },
        payload: lines.map((text) => JSON.stringify(text)).join('\n') + '\n',
      });
    expect((await send()).json().data).toMatchObject({ accepted: 3, unbilled: 0, already_imported: 0 });
    expect((await send()).json().data).toMatchObject({ accepted: 0, unbilled: 0, already_imported: 3 });
    lines.push(line(item, 'click', now, 3), line(item, 'click', now, 4));
    // Another key (a new file): 3 billed already, one more fits under 4, the last does not.
    const next = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/events/import',
      headers: { 'content-type': 'application/x-ndjson', 'idempotency-key': `ceilings-2-${item.lineItemId}` },
      payload: lines.slice(3).map((text) => JSON.stringify(text)).join('\n') + '\n',
    });
    expect(next.json().data).toMatchObject({ accepted: 2, unbilled: 1 });
    expect((await billing(item.lineItemId)).reduce((sum, event) => sum + event.cost_nanos, 0)).toBe(4e9);
  });

  it("judges lines read after midnight against the live spend of the new day, not the import's first day", async () => {
    // CPC 1 USD, daily budget 1 USD: each UTC day bills at most 2 clicks.
    const item = await trackedLineItem(ctx, { bid_type: 'cpc', bid_value: 1 }, { daily: 1, currency: 'USD' });
    // Wired as serving and the import route wire them: the spend is read by serving's SpendPacing,
    // ClickHouse's plus what it accepted and has not written (the pipeline says 1 event: the click below).
    const pacing = new SpendPacing(ctx.stores.ch, { readBetweenWrites: (read) => read(1) });
    const destinations = new IndexedDestinations(3_600_000);
    destinations.readSpendWith((lineItems, fromDay) => pacing.billedSpend(lineItems, fromDay));
    // An import begun in the last second of yesterday; its spend is read today (now), after a serve
    // started today and this instance accepted 2 USD of it, not yet written to ClickHouse.
    const midnight = utcDay(Date.now()) * MS_PER_DAY;
    const ceilings = new ImportCeilings({ db: ctx.stores.db, billedSpend: (lineItems) => destinations.billedSpend(lineItems), ceiling: new BillingCeiling(() => undefined, () => undefined) });
    pacing.roll(Date.now());
    pacing.record(sampleEvent({ line_item_id: item.lineItemId, type: 'click', cost_nanos: 2e9, event_time: Date.now() }));
    const click = (timeMs: number) => sampleEvent({ line_item_id: item.lineItemId, campaign_id: item.campaignId, type: 'click', cost_nanos: 1e9, event_time: timeMs });
    const [yesterdays, todays] = [click(midnight - 1000), click(Date.now())];
    await ceilings.judgeAndStore([yesterdays, todays], async () => {});
    // Yesterday billed nothing: its line is billed. Today is at 2x: its line is not.
    expect([yesterdays, todays].map((event) => [event.cost_nanos, event.unbilled])).toEqual([
      [1e9, ''],
      [0, 'over_daily_budget'],
    ]);
  });
});
