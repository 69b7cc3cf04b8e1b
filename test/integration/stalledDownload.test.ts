import { get as httpGet } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnotherInstance, startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser } from '../helpers/factories.js';
import { createReportCampaign } from '../helpers/reportingFixtures.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { metricSample } from '../helpers/metricSample.js';

// An audit export of many pages (80 of 500 events, about 10 MB of CSV: more than loopback's socket
// buffers take), sent to clients that read it slowly or not at all.
const PAGE_ROWS = 500;
const EVENTS = 80 * PAGE_ROWS;
const STALL_MS = 1000;

let patient: TestContext;
let strict: TestContext;
let capped: TestContext;
let key: string;
let path: string;
let day: string;
let wholeCsv: string;

beforeAll(async () => {
  patient = await startTestApp({ EXPORT_PAGE_ROWS: String(PAGE_ROWS) });
  strict = await startAnotherInstance(patient, { EXPORT_PAGE_ROWS: String(PAGE_ROWS), DOWNLOAD_STALL_TIMEOUT_MS: String(STALL_MS) });
  capped = await startAnotherInstance(patient, { EXPORT_PAGE_ROWS: String(PAGE_ROWS), MAX_DOWNLOADS_PER_OWNER: '2' });
  for (const ctx of [patient, strict, capped]) await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const advertiser = await createAdvertiser(patient, ['reporting']);
  key = advertiser.key;
  const campaign = await createReportCampaign(patient, advertiser.user.id);
  day = new Date().toISOString().slice(0, 10);
  const start = Date.parse(`${day}T00:00:00.000Z`);
  await insertEvents(
    patient,
    Array.from({ length: EVENTS }, (_, index) => sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, event_time: start + index })),
  );
  path = `/v1/advertiser/reporting/events?campaign_id=${campaign.id}&date_from=${day}&date_to=${day}&format=csv`;
  wholeCsv = (await patient.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })).body;
  expect(wholeCsv.split('\r\n').length).toBe(EVENTS + 2);
}, 120_000);

afterAll(async () => {
  await capped?.close();
  await strict?.close();
  await patient?.close();
});

function portOf(ctx: TestContext): number {
  return (ctx.app.server.address() as { port: number }).port;
}

/** A client that sends the export's request and never reads the answer. */
function stalledClient(ctx: TestContext): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(ctx), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** The held bytes once they no longer change (the download waits on its client), polled. */
async function settledHeldBytes(ctx: TestContext): Promise<number> {
  let last = -1;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const held = await metricSample(ctx, 'adsvc_download_held_bytes');
    if (held > 0 && held === last) return held;
    last = held;
  }
  throw new Error(`held bytes never settled (last ${last})`);
}

describe('a client that stops reading a streamed download', () => {
  it('makes the service hold less than one page of it, not pages read ahead', { timeout: 60_000 }, async () => {
    const pageBytes = wholeCsv.length / (EVENTS / PAGE_ROWS);
    const client = await stalledClient(patient);
    try {
      await expect.poll(() => metricSample(patient, 'adsvc_downloads_open'), { timeout: 10_000 }).toBe(1);
      const held = await settledHeldBytes(patient);
      // One piece read ahead and one the socket holds, 16 KB each; a page of 500 events is about 100 KB.
      // Whole pages as pieces held two pages (one read ahead, one in the socket).
      expect(held).toBeLessThan(pageBytes);
      expect(held).toBeGreaterThan(0);
    } finally {
      client.destroy();
    }
    await expect.poll(() => metricSample(patient, 'adsvc_downloads_open'), { timeout: 10_000 }).toBe(0);
    expect(await metricSample(patient, 'adsvc_download_held_bytes')).toBe(0);
  });

  it('is cut after DOWNLOAD_STALL_TIMEOUT_MS: its download ends incomplete and what it held is freed', { timeout: 60_000 }, async () => {
    const client = await stalledClient(strict);
    let received = '';
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    client.setEncoding('latin1');
    client.on('data', (data: string) => (received += data));
    client.on('error', () => undefined);
    await expect.poll(() => metricSample(strict, 'adsvc_download_stalls_total'), { timeout: 20_000 }).toBe(1);
    // The response closes on a later turn than the stall is counted.
    await expect.poll(() => metricSample(strict, 'adsvc_downloads_open'), { timeout: 10_000 }).toBe(0);
    expect(await metricSample(strict, 'adsvc_download_held_bytes')).toBe(0);
    // What the sockets' buffers still held arrives, then the connection closes without the chunked body's last chunk.
    client.resume();
    await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.length).toBeLessThan(wholeCsv.length);
    expect(received.endsWith('\r\n0\r\n\r\n')).toBe(false);
  });

  it('a client that reads slowly, with pauses shorter than the timeout, gets the whole file', { timeout: 90_000 }, async () => {
    const stallsBefore = await metricSample(strict, 'adsvc_download_stalls_total');
    const started = Date.now();
    const body = await new Promise<string>((resolve, reject) => {
      httpGet(`http://127.0.0.1:${portOf(strict)}${path}`, { headers: { 'x-api-key': key }, agent: false }, (response) => {
        let text = '';
        let sincePause = 0;
        response.setEncoding('utf8');
        response.on('data', (data: string) => {
          text += data;
          sincePause += data.length;
          // A reader that takes a breather after every MB, each shorter than the stall timeout.
          if (sincePause >= 1_000_000) {
            sincePause = 0;
            response.pause();
            setTimeout(() => response.resume(), STALL_MS * 0.6);
          }
        });
        response.on('end', () => resolve(text));
        response.on('error', reject);
      }).on('error', reject);
    });
    expect(Date.now() - started).toBeGreaterThan(3 * STALL_MS);
    expect(body).toBe(wholeCsv);
    expect(await metricSample(strict, 'adsvc_download_stalls_total')).toBe(stallsBefore);
  });
});

describe('downloads one organization holds at once', () => {
  const url = (ctx: TestContext, pathAndQuery: string) => `http://127.0.0.1:${portOf(ctx)}${pathAndQuery}`;

  it('past MAX_DOWNLOADS_PER_OWNER are refused 429 rate_limited with Retry-After, until one of them closes', { timeout: 60_000 }, async () => {
    const clients = [await stalledClient(capped), await stalledClient(capped)];
    try {
      await expect.poll(() => metricSample(capped, 'adsvc_downloads_open'), { timeout: 10_000 }).toBe(2);
      const refused = await fetch(url(capped, path), { headers: { 'x-api-key': key } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      expect(await metricSample(capped, 'adsvc_downloads_refused_total')).toBe(1);

      // A JSON report page is not a download; the admin token's downloads are its own.
      const json = await fetch(url(capped, `/v1/advertiser/reporting/campaigns?date_from=${day}&date_to=${day}`), { headers: { 'x-api-key': key } });
      expect(json.status).toBe(200);
      await json.text();
      const operatorCsv = await fetch(url(capped, '/v1/admin/reporting?format=csv'), { headers: { authorization: `Bearer ${capped.secrets.adminToken}` } });
      expect(operatorCsv.status).toBe(200);
      await operatorCsv.text();

      clients[0]!.destroy();
      // The slot is given back when the stalled response closes, on a later turn than the socket's end.
      await expect
        .poll(
          async () => {
            const again = await fetch(url(capped, path), { headers: { 'x-api-key': key } });
            const body = await again.text();
            return again.status === 200 ? body.length : again.status;
          },
          { timeout: 10_000, interval: 200 },
        )
        .toBe(wholeCsv.length);
    } finally {
      for (const client of clients) client.destroy();
    }
    await expect.poll(() => metricSample(capped, 'adsvc_downloads_open'), { timeout: 10_000 }).toBe(0);
  });
});
