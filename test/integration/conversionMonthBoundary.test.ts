import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { SpendPacing } from '../../src/serving/spendPacing.js';
import { createClickHouseEventPipeline } from '../../src/tracking/clickhouseEventPipeline.js';
import { BillingCeiling } from '../../src/tracking/billingCeiling.js';
import { createConversionRecorder } from '../../src/tracking/conversionRecorder.js';
import type { EventPipeline } from '../../src/tracking/eventPipeline.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import type { Visitor } from '../../src/tracking/visitor.js';
import { startTestApp, testConfig, type TestContext } from '../helpers/testApp.js';
import {
  ADDRESSES,
  clickedServe,
  trackedLineItem,
  type TrackedLineItem,
} from '../helpers/trackingFixtures.js';

/**
 * A conversion whose first request got no answer (ClickHouse took its insert late: a holder cut
 * off while ClickHouse still worked on it, a replica behind) and whose retry comes after a month
 * boundary, so after the first one's partition: it must be stored and billed once.
 */

let ctx: TestContext;
let item: TrackedLineItem;
let clickId: string;

beforeAll(async () => {
  ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
  item = await trackedLineItem(ctx, { bid_type: 'cpa', bid_value: 9 });
  clickId = await clickedServe(ctx, item, 'CPA', 9_000_000_000, { reader: ADDRESSES.comcastResidential });
});

afterAll(async () => {
  await ctx.close();
});

const advertiserServer: Visitor = { ip: { ip: '203.0.113.7', ipClass: 'public', network: '', ivt: '' }, userAgent: 'shop-backend/1.0', ivt: '' };

/**
 * The pipeline's real writeNow, except that the first insert is held back and answered as failed
 * (its answer lost); `deliverHeld` sends it to ClickHouse afterwards, as a late insert would land.
 */
function answerLostOnce(pipeline: EventPipeline) {
  let held: { events: TrackedEvent[]; token: string } | undefined;
  let lost = false;
  const events: EventPipeline = {
    ...pipeline,
    async writeNow(batch, token) {
      if (lost) return pipeline.writeNow(batch, token);
      lost = true;
      held = { events: batch, token };
      throw new ApiError('unavailable', 'the event could not be stored; retry later');
    },
  };
  return { events, deliverHeld: () => pipeline.writeNow(held!.events, held!.token) };
}

async function storedRows(eventId: string): Promise<Array<{ month: number }>> {
  const result = await ctx.stores.ch.client.query({
    query: 'SELECT toYYYYMM(event_time) AS month FROM events_v1 WHERE event_id = {id:UUID} ORDER BY month',
    query_params: { id: eventId },
    format: 'JSONEachRow',
  });
  return result.json();
}

describe('a conversion_id retried across a month boundary after a lost answer', () => {
  it('is stored once, in the month of the first request, and the retry answers 201 with it', async () => {
    const pipeline = await createClickHouseEventPipeline({
      config: testConfig(mkdtempSync(path.join(inject('testRoot'), 'month-'))),
      ch: ctx.stores.ch,
      log: pino({ level: 'silent' }),
    });
    try {
      const { events, deliverHeld } = answerLostOnce(pipeline);
      // Judged as trackingRoutes wires it: no counters (the line item is read from Postgres), its spend from ClickHouse.
      const pacing = new SpendPacing(ctx.stores.ch, pipeline);
      const ceiling = new BillingCeiling(() => undefined, (lineItems, fromDay) => pacing.billedSpend(lineItems, fromDay));
      const recorder = createConversionRecorder({ db: ctx.stores.db, ch: ctx.stores.ch, events, ceiling, attributionWindowDays: 60 });
      const now = new Date();
      const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      const input = { click_id: clickId, conversion_id: 'order-month-end', value: 30, currency: 'USD' };
      // 23:59:59.5 on the month's last day: no answer.
      await expect(recorder.record(input, item.organizationId, advertiserServer, monthStart - 500)).rejects.toMatchObject({ code: 'unavailable' });
      // 00:00:01 the next day, in the next month: nothing in ClickHouse yet, so it is written.
      const retry = await recorder.record(input, item.organizationId, advertiserServer, monthStart + 1000);
      expect(retry.created).toBe(true);
      // Then the first insert lands.
      await deliverHeld();
      const firstMonth = Number(new Date(monthStart - 500).toISOString().slice(0, 7).replace('-', ''));
      expect(await storedRows(retry.result.id)).toEqual([{ month: firstMonth }]);
    } finally {
      await pipeline.close();
    }
  });
});
