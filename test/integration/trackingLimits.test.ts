import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { eventsOf, fromAddress, serveClaims, signedToken, trackedLineItem, type TrackedLineItem } from '../helpers/trackingFixtures.js';

// A development install: private addresses count. A buffer of one event that is never flushed on
// its own, so the second event finds it full. A small import body limit.
let ctx: TestContext;
let item: TrackedLineItem;

beforeAll(async () => {
  ctx = await startTestApp({
    TRUST_PROXY: '127.0.0.1',
    IVT_ALLOW_PRIVATE_IPS: 'true',
    EVENT_BUFFER_MAX_ROWS: '1',
    EVENT_FLUSH_INTERVAL_MS: '600000',
    IMPORT_BODY_LIMIT_BYTES: '2048',
  });
  item = await trackedLineItem(ctx);
});

afterAll(async () => {
  await ctx.close();
});

describe('tracking limits and development settings', () => {
  it('answers 503 from the pixel when the event buffer is full, and counts private addresses with IVT_ALLOW_PRIVATE_IPS', async () => {
    const first = await fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, '10.1.2.3');
    expect(first.statusCode).toBe(200);
    const second = await fromAddress(ctx, `/v1/t/i/${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`, '10.1.2.4');
    expect(second.statusCode).toBe(503);
    expect(second.json().error.code).toBe('unavailable');

    await ctx.close(); // flushes what was accepted
    ctx = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
    const events = await eventsOf(ctx, item.lineItemId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ip: '10.1.2.3', ip_class: 'private', ivt: '', cost_nanos: 2_500_000 });
  });

  it('answers 413 for an import body over IMPORT_BODY_LIMIT_BYTES', async () => {
    await ctx.close();
    ctx = await startTestApp({ IMPORT_BODY_LIMIT_BYTES: '2048' });
    const response = await ctx.admin({
      method: 'POST',
      url: '/v1/admin/events/import',
      headers: { 'content-type': 'application/x-ndjson' },
      payload: `${'{"type":"impression"}\n'.repeat(200)}`,
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('payload_too_large');
  });
});
