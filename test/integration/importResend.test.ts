import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, BOT_UA, rollupOf, trackedLineItem } from '../helpers/trackingFixtures.js';

/** An import whose connection is cut midway, sent again whole: with an Idempotency-Key every line is stored once. */

let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await startTestApp();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await ctx.close();
});

async function storedOf(lineItemId: string): Promise<{ rows: number; ids: number }> {
  const result = await ctx.stores.ch.client.query({
    query: 'SELECT count() AS rows, uniqExact(event_id) AS ids FROM events_v1 WHERE line_item_id = {id:UUID}',
    query_params: { id: lineItemId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: string | number; ids: string | number }>();
  return { rows: Number(row!.rows), ids: Number(row!.ids) };
}

function importNdjson(body: string, headers: Record<string, string>) {
  return ctx.admin({ method: 'POST', url: '/v1/admin/events/import', headers: { 'content-type': 'application/x-ndjson', ...headers }, payload: body });
}

describe('POST /v1/admin/events/import with an Idempotency-Key', () => {
  it('stores a file whose connection was cut midway once when it is sent again whole', async () => {
    const item = await trackedLineItem(ctx);
    const start = Date.now() - 3_600_000;
    // 25,000 lines; every tenth from a bot, so invalid lines are counted apart too.
    const lines = Array.from({ length: 25_000 }, (_, index) =>
      JSON.stringify({
        type: 'impression',
        time: new Date(start + index).toISOString(),
        line_item_id: item.lineItemId,
        placement_id: item.placementId,
        ip: ADDRESSES.comcastResidential,
        ...(index % 10 === 9 ? { user_agent: BOT_UA } : {}),
      }),
    );
    const body = lines.map((line) => `${line}\n`).join('');
    const headers = { 'idempotency-key': `backfill-${item.lineItemId}` };

    // The first send, over a real connection: the whole body announced, 15,000 lines sent, then cut.
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `POST /v1/admin/events/import HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ctx.secrets.adminToken}\r\n` +
        `content-type: application/x-ndjson\r\nidempotency-key: ${headers['idempotency-key']}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    socket.write(lines.slice(0, 15_000).map((line) => `${line}\n`).join(''));
    await eventually(async () => ((await storedOf(item.lineItemId)).rows >= 10_000 ? true : undefined), 'the first 10,000 lines to be stored', 30_000);
    socket.destroy();
    const beforeResend = (await storedOf(item.lineItemId)).rows;
    expect(beforeResend).toBeLessThan(25_000);

    const resend = await importNdjson(body, headers);
    expect(resend.statusCode).toBe(200);
    const summary = resend.json().data;
    expect(summary.rejected).toBe(0);
    expect(summary.already_imported).toBeGreaterThanOrEqual(10_000);
    expect(summary.accepted + summary.invalid + summary.already_imported).toBe(25_000);
    expect(await storedOf(item.lineItemId)).toEqual({ rows: 25_000, ids: 25_000 });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 22_500 });

    // And once more: nothing new.
    const again = await importNdjson(body, headers);
    expect(again.json().data).toMatchObject({ accepted: 0, invalid: 0, rejected: 0, already_imported: 25_000 });
    expect(await storedOf(item.lineItemId)).toEqual({ rows: 25_000, ids: 25_000 });
  });

  it('stores the same lines again under another key, or none', async () => {
    const item = await trackedLineItem(ctx);
    const body = `${JSON.stringify({ type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential })}\n`;
    expect((await importNdjson(body, { 'idempotency-key': 'day-1' })).json().data).toMatchObject({ accepted: 1, already_imported: 0 });
    expect((await importNdjson(body, { 'idempotency-key': 'day-1' })).json().data).toMatchObject({ accepted: 0, already_imported: 1 });
    expect((await importNdjson(body, { 'idempotency-key': 'day-2' })).json().data).toMatchObject({ accepted: 1, already_imported: 0 });
    expect((await importNdjson(body, {})).json().data).toMatchObject({ accepted: 1, already_imported: 0 });
    await eventually(async () => ((await storedOf(item.lineItemId)).rows === 3 ? true : undefined), 'the spooled import to be written');
  });

  it('answers 400 for a key that is not 1 to 255 printable ASCII characters, and stores nothing', async () => {
    const item = await trackedLineItem(ctx);
    const body = `${JSON.stringify({ type: 'impression', time: new Date().toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: ADDRESSES.comcastResidential })}\n`;
    for (const key of ['has space', 'x'.repeat(256)]) {
      const response = await importNdjson(body, { 'idempotency-key': key });
      expect(response.statusCode, key).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'bad_request', details: [{ path: 'Idempotency-Key' }] });
    }
    expect((await storedOf(item.lineItemId)).rows).toBe(0);
  });
});
