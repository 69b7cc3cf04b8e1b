import { mkdtempSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ClickHouse } from '../../src/store/clickhouse.js';
import { withUnavailableQueries } from '../../src/store/clickhouseUnavailable.js';
import { createAdvertiser } from '../helpers/factories.js';
import { createReportCampaign, type CampaignFixture } from '../helpers/reportingFixtures.js';
import { sampleEvent } from '../helpers/sampleEvent.js';
import { insertEvents } from '../helpers/servingFixtures.js';
import { startTestApp, startTestAppOn, type TestContext } from '../helpers/testApp.js';

/**
 * ClickHouse fails after it began answering: the connection drops while a result is read, or the
 * engine stops between the pages of a streamed export. A buffered JSON answer is the contract's 503;
 * a stream already sent in part is cut so that the client sees an error, never a clean end.
 */

let ctx: TestContext;
let key: string;
let campaign: CampaignFixture;

beforeAll(async () => {
  ctx = await startTestApp();
  const advertiser = await createAdvertiser(ctx, ['reporting']);
  key = advertiser.key;
  campaign = await createReportCampaign(ctx, advertiser.user.id);
});

afterAll(async () => {
  await ctx.close();
});

/**
 * A connection to ClickHouse cut while the answer is read: the status line, the headers and the
 * first bytes of the body reach the client, then the socket closes. With a real server
 * (ADSVC_TEST_CLICKHOUSE_URL) the proxy forwards the request to it and cuts its answer; embedded
 * runs have no server, so the proxy sends the first bytes of an answer in ClickHouse's form itself.
 */
async function cuttingProxy(upstream: URL | undefined): Promise<{ url: string; server: Server }> {
  const server = createServer((client: Socket) => {
    client.on('error', () => undefined);
    const cut = (head: Buffer) => {
      client.write(head, () => client.destroy());
    };
    if (upstream === undefined) {
      client.once('data', () =>
        cut(
          Buffer.from(
            'HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson; charset=UTF-8\r\nX-ClickHouse-Format: JSONEachRow\r\n' +
              'Transfer-Encoding: chunked\r\nConnection: Keep-Alive\r\n\r\n20\r\n{"row_campaign":"0000000000000',
          ),
        ),
      );
      return;
    }
    const server = connect(Number(upstream.port), upstream.hostname);
    server.on('error', () => client.destroy());
    client.pipe(server);
    let received = Buffer.alloc(0);
    server.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const bodyAt = received.indexOf('\r\n\r\n');
      if (bodyAt < 0) return;
      server.destroy();
      cut(received.subarray(0, bodyAt + 4 + 8));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a connection to ClickHouse that drops while a JSON report is read', () => {
  it('answers 503 unavailable with Retry-After, not 500', async () => {
    const upstream = process.env.ADSVC_TEST_CLICKHOUSE_URL ? new URL(process.env.ADSVC_TEST_CLICKHOUSE_URL) : undefined;
    const proxy = await cuttingProxy(upstream);
    const client = createClient({
      url: proxy.url,
      username: process.env.ADSVC_TEST_CLICKHOUSE_USER ?? 'default',
      password: process.env.ADSVC_TEST_CLICKHOUSE_PASSWORD ?? '',
      database: 'adsvc_test',
      request_timeout: 5_000,
      log: { level: ClickHouseLogLevel.OFF },
    });
    const cutting: ClickHouse = { client: withUnavailableQueries(client), kind: 'server', close: () => client.close() };
    const other = await startTestAppOn({ ...ctx.stores, ch: cutting }, mkdtempSync(path.join(inject('testRoot'), 'cutting-')));
    try {
      for (const url of ['/v1/advertiser/reporting/campaigns', '/v1/advertiser/reporting/traffic-quality']) {
        const response = await other.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        expect(response.statusCode, url).toBe(503);
        expect(response.headers['retry-after'], url).toBe('5');
        expect(response.json(), url).toEqual({ error: { code: 'unavailable', message: 'the event store is unavailable; retry later' } });
      }
    } finally {
      await other.close();
      await client.close();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});

/** The raw HTTP/1.1 answer to a GET over a real socket, read until the server closes it or ends the chunked body. */
interface RawAnswer {
  head: string;
  body: string;
  /** The last chunk (`0\r\n\r\n`) arrived: the server ended the body itself. */
  ended: boolean;
  /** The socket closed with an error or before the end. */
  cut: boolean;
}

describe('embedded ClickHouse that stops while an export streams', () => {
  it('cuts the chunked answer without its last chunk, so the client sees an incomplete download', async () => {
    // Eight pages of 5,000 events: more than the sockets between server and client buffer, so the
    // export is still reading pages when the engine stops.
    const start = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`) - 86_400_000;
    const events = Array.from({ length: 40_000 }, (_, index) =>
      sampleEvent({ campaign_id: campaign.id, line_item_id: campaign.line_item_id, event_time: start + index }),
    );
    for (let from = 0; from < events.length; from += 10_000) await insertEvents(ctx, events.slice(from, from + 10_000));
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    const day = new Date(start).toISOString().slice(0, 10);

    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const answer = new Promise<RawAnswer>((resolve) => {
      let cut = false;
      socket.on('error', () => {
        cut = true;
      });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const bodyAt = text.indexOf('\r\n\r\n');
        const body = text.slice(bodyAt + 4);
        const ended = body.endsWith('\r\n0\r\n\r\n');
        resolve({ head: text.slice(0, bodyAt), body, ended, cut: cut || !ended });
      });
    });
    socket.write(
      `GET /v1/advertiser/reporting/events?campaign_id=${campaign.id}&date_from=${day}&date_to=${day} HTTP/1.1\r\n` +
        `host: 127.0.0.1\r\nx-api-key: ${key}\r\nconnection: close\r\n\r\n`,
    );
    // The first bytes arrive; the client stops reading for a moment, and the engine stops meanwhile.
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.pause();
    await ctx.stores.ch.close();
    socket.resume();

    const { head, body, ended, cut } = await answer;
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
    expect(ended).toBe(false);
    expect(cut).toBe(true);
    const lines = body.split('\n').filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(40_000);
  });
});
