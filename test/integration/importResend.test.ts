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

/**
 * An import over a real connection whose body the test sends in parts (`send`); `answer` is the
 * status and JSON body once the server answers and closes.
 */
function importOverSocket(key: string, bodyBytes: number) {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<{ status: number; body: { data?: Record<string, number>; error?: { code: string; message: string } } }>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) });
    });
  });
  socket.write(
    `POST /v1/admin/events/import HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ctx.secrets.adminToken}\r\nconnection: close\r\n` +
      `content-type: application/x-ndjson\r\nidempotency-key: ${key}\r\ncontent-length: ${bodyBytes}\r\n\r\n`,
  );
  return { send: (text: string) => socket.write(text), answer };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  it('stores each line once when the file is sent twice at once and a line is judged otherwise by the two', async () => {
    const item = await trackedLineItem(ctx);
    const t0 = Date.now();
    // Line 1 is 5 minutes and 4 seconds ahead of t0: in the future for the first request (refused),
    // not for the second, sent 4.5 s later. The other lines cross a month's end at line 1001.
    const monthStart = Date.UTC(new Date(t0).getUTCFullYear(), new Date(t0).getUTCMonth(), 1);
    const lines = Array.from({ length: 2500 }, (_, index) =>
      JSON.stringify({
        type: 'impression',
        time: new Date(index === 0 ? t0 + 5 * 60_000 + 4_000 : monthStart - 1000 + index).toISOString(),
        line_item_id: item.lineItemId,
        placement_id: item.placementId,
        ip: ADDRESSES.comcastResidential,
      }),
    );
    const text = (from: number, to: number) => lines.slice(from, to).map((line) => `${line}\n`).join('');
    const bodyBytes = Buffer.byteLength(text(0, lines.length));
    const key = `twice-${item.lineItemId}`;

    // Both requests get their first 999 lines, then the rest in the same instant: both reach the
    // end of their first batch together and look it up before either has written it.
    const first = importOverSocket(key, bodyBytes);
    first.send(text(0, 999));
    await sleep(Math.max(0, t0 + 4_500 - Date.now()));
    const second = importOverSocket(key, bodyBytes);
    second.send(text(0, 999));
    await sleep(500);
    first.send(text(999, lines.length));
    second.send(text(999, lines.length));
    const answers = await Promise.all([first.answer, second.answer]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const [one, two] = answers.map((answer) => answer.body.data as Record<string, number>) as [Record<string, number>, Record<string, number>];
    expect(one.rejected).toBe(1);
    expect(two.rejected).toBe(0);
    expect(one.accepted! + one.already_imported!).toBe(2499);
    expect(two.accepted! + two.already_imported!).toBe(2500);
    expect(await storedOf(item.lineItemId)).toEqual({ rows: 2500, ids: 2500 });
    expect(await rollupOf(ctx, item.lineItemId)).toMatchObject({ impressions: 2500 });
  });

  it("judges a batch one month of which an earlier request stored against the spend it billed once (rev37 item 2)", async () => {
    // 500 impressions 40 days ago (another month) and 500 now, 0.002 USD each, on a 2 USD lifetime
    // budget: every line fits. The first request's insert of the second month is refused (a constraint
    // on events_v1, dropped after); the resend judged the whole batch, counting the stored month's
    // 1 USD twice (read from daily_stats_v1, added again by the judging), and billed none of the 500 new lines.
    const item = await trackedLineItem(ctx, { bid_type: 'cpm', bid_value: 2 });
    await ctx.stores.db.query('UPDATE line_items SET budget_lifetime = 2 WHERE id = $1', [item.lineItemId]);
    const now = Date.now();
    const line = (index: number, time: number) =>
      JSON.stringify({ type: 'impression', time: new Date(time).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip: `81.2.${71 + (index >> 8)}.${index & 255}` });
    const body = [...Array.from({ length: 500 }, (_, index) => line(index, now - 40 * 86_400_000)), ...Array.from({ length: 500 }, (_, index) => line(500 + index, now - 60_000))].join('\n');
    const key = `two-months-${item.lineItemId}`;
    const constraint = `refuse_${item.lineItemId.replaceAll('-', '')}`;
    await ctx.stores.ch.client.command({ query: `ALTER TABLE events_v1 ADD CONSTRAINT ${constraint} CHECK line_item_id != '${item.lineItemId}' OR event_time < fromUnixTimestamp64Milli(${now - 86_400_000}, 'UTC')` });
    let refused;
    try {
      refused = await importNdjson(body, { 'idempotency-key': key });
    } finally {
      await ctx.stores.ch.client.command({ query: `ALTER TABLE events_v1 DROP CONSTRAINT ${constraint}` });
    }
    expect(refused.statusCode, refused.body).toBe(503);
    expect(await storedOf(item.lineItemId)).toEqual({ rows: 500, ids: 500 });

    const resent = await importNdjson(body, { 'idempotency-key': key });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json().data).toMatchObject({ accepted: 500, already_imported: 500, unbilled: 0 });
    const [billed] = await (
      await ctx.stores.ch.client.query({ query: 'SELECT toInt64(sum(cost_nanos)) AS billed FROM events_v1 WHERE line_item_id = {id:UUID}', query_params: { id: item.lineItemId }, format: 'JSONEachRow' })
    ).json<{ billed: string | number }>();
    expect(Number(billed!.billed)).toBe(2_000_000_000);
  });

  it('refuses another body under a key already used (422) where its lines differ, and stores none of them', async () => {
    const item = await trackedLineItem(ctx);
    const line = (minute: number, ip: string = ADDRESSES.comcastResidential) =>
      `${JSON.stringify({ type: 'impression', time: new Date(Date.now() - minute * 60_000).toISOString(), line_item_id: item.lineItemId, placement_id: item.placementId, ip })}\n`;
    const lines = Array.from({ length: 1500 }, (_, index) => line(index + 1));
    const key = `reused-${item.lineItemId}`;
    expect((await importNdjson(lines.join(''), { 'idempotency-key': key })).json().data).toMatchObject({ accepted: 1500, already_imported: 0 });

    const refusedWith = async (body: string, lines: string) => {
      const response = await importNdjson(body, { 'idempotency-key': key });
      expect(response.statusCode).toBe(422);
      expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ path: 'Idempotency-Key', message: 'already used with another body' }] });
      expect(response.json().error.message).toContain(lines);
    };
    // The same first line, then others: before, the first was taken for already imported and the others stored.
    await refusedWith([lines[0], line(1, ADDRESSES.telekomResidentialV6), line(2, ADDRESSES.telekomResidentialV6)].join(''), 'lines 1 to 3 are not what that one had from line 1 on: other text, or that one had more or fewer lines there');
    // The first 3 lines only, byte for byte the first body's: they are not called different (try30 L5).
    await refusedWith(lines.slice(0, 3).join(''), 'lines 1 to 3 are not what that one had from line 1 on: other text, or that one had more or fewer lines there');
    // The same first 1000 lines, then others.
    await refusedWith([...lines.slice(0, 1000), line(7), line(8)].join(''), 'lines 1001 to 1002 are not what that one had from line 1001 on');
    // The same lines and more; the first 1000 only.
    await refusedWith([...lines, line(9)].join(''), 'lines 1001 to 1501 are not what that one had from line 1001 on: other text, or that one had more or fewer lines there');
    await refusedWith(lines.slice(0, 1000).join(''), 'this one ends at line 1000');
    expect(await storedOf(item.lineItemId)).toEqual({ rows: 1500, ids: 1500 });

    // The same file is still welcome, and another key takes the other file.
    expect((await importNdjson(lines.join(''), { 'idempotency-key': key })).json().data).toMatchObject({ accepted: 0, already_imported: 1500 });
    expect((await importNdjson([lines[0], line(1, ADDRESSES.telekomResidentialV6)].join(''), { 'idempotency-key': `${key}-2` })).json().data).toMatchObject({ accepted: 2 });
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
