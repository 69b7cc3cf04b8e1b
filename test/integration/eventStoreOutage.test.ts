import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openClickHouse, type ClickHouse } from '../../src/store/clickhouse.js';
import { EventStoreUnavailableError, withUnavailableQueries } from '../../src/store/clickhouseUnavailable.js';
import { startTestApp, startTestAppOn, type TestContext } from '../helpers/testApp.js';
import {
  ADDRESSES,
  clickedServe,
  eventsOf,
  trackedLineItem,
  type TrackedLineItem,
} from '../helpers/trackingFixtures.js';
import { freePort } from '../helpers/freePort.js';

/** ClickHouse gone while the service runs: what reads it answers 503 `unavailable` with Retry-After, never 500. */

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

function postConversion(app: TestContext, payload: object) {
  return app.app.inject({ method: 'POST', url: '/v1/advertiser/conversions', headers: { 'x-api-key': item.key }, payload });
}

function campaignReport(app: TestContext) {
  return app.app.inject({ method: 'GET', url: '/v1/advertiser/reporting/campaigns', headers: { 'x-api-key': item.key } });
}

/** Each answer is the envelope's 503 unavailable with Retry-After. */
function expectUnavailable(responses: Array<{ statusCode: number; headers: Record<string, unknown>; json(): unknown }>) {
  for (const response of responses) {
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual({ error: { code: 'unavailable', message: 'the event store is unavailable; retry later' } });
  }
}

describe('a ClickHouse server that refuses connections', () => {
  it('answers conversions, with and without conversion_id, and reports 503 unavailable', async () => {
    // The same client as CLICKHOUSE_URL gets, on a port where nothing listens.
    const client = createClient({ url: `http://127.0.0.1:${await freePort()}`, request_timeout: 5_000 });
    const refusing: ClickHouse = { client: withUnavailableQueries(client), kind: 'server', close: () => client.close() };
    const other = await startTestAppOn({ ...ctx.stores, ch: refusing }, mkdtempSync(path.join(inject('testRoot'), 'refusing-')), { TRUST_PROXY: '127.0.0.1' });
    try {
      expectUnavailable([
        await postConversion(other, { click_id: clickId, conversion_id: 'order-1' }),
        await postConversion(other, { click_id: clickId }),
        await campaignReport(other),
      ]);
    } finally {
      await other.close();
      await client.close();
    }
  });
});

describe('a query ClickHouse answers with an error', () => {
  it("keeps its error (the contract's 500) when the same query would fail again: its own time limit, a bad query", async () => {
    for (const query of [
      "SELECT count() FROM system.numbers SETTINGS max_execution_time = 0.2, timeout_overflow_mode = 'throw'",
      'SELECT no_such_function()',
    ]) {
      const failure = await ctx.stores.ch.client.query({ query, format: 'JSONEachRow' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, query).toBeInstanceOf(Error);
      expect(failure, query).not.toBeInstanceOf(EventStoreUnavailableError);
    }
  });
});

describe('embedded ClickHouse that cannot answer (its session closed)', () => {
  it('answers conversions and reports 503 unavailable, stores nothing, and answers again once it is back', async () => {
    await ctx.stores.ch.close();
    expectUnavailable([
      await postConversion(ctx, { click_id: clickId, conversion_id: 'order-2', value: 5 }),
      await postConversion(ctx, { click_id: clickId, value: 5 }),
      await campaignReport(ctx),
    ]);
    // Back: the same stores with ClickHouse reopened on its files, and the app started again on them.
    await ctx.close();
    const { CLICKHOUSE_URL, CLICKHOUSE_USER, CLICKHOUSE_PASSWORD, CLICKHOUSE_DATABASE } = ctx.config;
    const ch = await openClickHouse({ url: CLICKHOUSE_URL, user: CLICKHOUSE_USER, password: CLICKHOUSE_PASSWORD, database: CLICKHOUSE_DATABASE, dataDir: ctx.dataDir });
    ctx = await startTestAppOn({ ...ctx.stores, ch, close: async () => undefined }, ctx.dataDir, { TRUST_PROXY: '127.0.0.1' });
    expect((await eventsOf(ctx, item.lineItemId)).map((event) => event.type).sort()).toEqual(['click', 'impression']);
    const retried = await postConversion(ctx, { click_id: clickId, conversion_id: 'order-2', value: 5 });
    expect(retried.statusCode).toBe(201);
    expect((await campaignReport(ctx)).statusCode).toBe(200);
  });
});
