import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { creative, eventuallyServed, serve, servableLineItem, uniqueWord } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { ADDRESSES, fromAddress, serveClaims, signedToken, trackedLineItem } from '../helpers/trackingFixtures.js';

/** One sample's value from Prometheus text: `name{labels} value`, labels given as they are printed (sorted as registered). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels} `) || (labels === '' && candidate.startsWith(`${name} `)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await startTestApp();
  });
  afterAll(async () => {
    await ctx.close();
  });

  async function scrape(): Promise<string> {
    const response = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.body;
  }

  it('counts serves, fills and latency per route, and the index size and build time', async () => {
    const created = await createAdvertiser(ctx);
    const publisher = await createPublisher(ctx);
    const placementId = (await createPlacement(ctx, publisher.id)).id;
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, created, {
      targeting: { keywords: { include: [word] } },
      creatives: [creative()],
    });
    const about = { placement_id: placementId, context: { query: `about ${word}`, response: `More on ${word}.` } };
    await eventuallyServed(ctx, publisher.token, about, lineItemId);

    const before = await scrape();
    expect((await serve(ctx, publisher.token, about)).json().ad).not.toBeNull();
    expect((await serve(ctx, publisher.token, { placement_id: placementId, context: { query: uniqueWord(), response: '' } })).json().ad).toBeNull();
    const after = await scrape();

    expect(sample(after, 'adsvc_serve_requests_total')! - sample(before, 'adsvc_serve_requests_total')!).toBe(2);
    expect(sample(after, 'adsvc_serve_fills_total')! - sample(before, 'adsvc_serve_fills_total')!).toBe(1);
    const served = '{le="+Inf",route="/v1/serve",method="POST",status_code="200"}';
    expect(sample(after, 'adsvc_http_request_duration_seconds_bucket', served)! - (sample(before, 'adsvc_http_request_duration_seconds_bucket', served) ?? 0)).toBe(2);
    expect(sample(after, 'adsvc_ad_index_line_items')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'adsvc_ad_index_rebuild_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('counts accepted and written events and shows the backlog', async () => {
    const item = await trackedLineItem(ctx);
    const before = await scrape();
    for (let pixel = 0; pixel < 3; pixel++) {
      const url = `${IMPRESSION_PATH}${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`;
      expect((await fromAddress(ctx, url, ADDRESSES.comcastResidential)).statusCode).toBe(200);
    }
    const accepted = sample(await scrape(), 'adsvc_events_accepted_total')! - sample(before, 'adsvc_events_accepted_total')!;
    expect(accepted).toBe(3);
    const written = await eventually(async () => {
      const text = await scrape();
      const delta = sample(text, 'adsvc_events_written_total')! - sample(before, 'adsvc_events_written_total')!;
      return delta >= 3 && sample(text, 'adsvc_event_backlog_rows') === 0 ? text : undefined;
    }, 'the pixels to be written');
    expect(sample(written, 'adsvc_event_backlog_oldest_age_seconds')).toBe(0);
    expect(sample(written, 'adsvc_events_refused_total')).toBe(0);
    expect(sample(written, 'adsvc_events_quarantined_total')).toBe(0);
  });
});

describe('GET /healthz and the event path', () => {
  it('answers 200 with every check ok, and 503 naming event_backlog while ClickHouse refuses the writes', async () => {
    const ctx = await startTestApp({ HEALTH_EVENT_BACKLOG_MAX_ROWS: '1' });
    try {
      const healthy = await ctx.app.inject({ method: 'GET', url: '/healthz' });
      expect(healthy.statusCode).toBe(200);
      expect(healthy.json()).toMatchObject({
        status: 'ok',
        checks: { postgres: 'ok', clickhouse: 'ok', spool: 'ok', event_backlog: 'ok' },
        event_backlog: { rows: 0, oldest_age_seconds: 0, max_rows: 1 },
      });

      const item = await trackedLineItem(ctx);
      await ctx.stores.ch.client.command({ query: 'RENAME TABLE events_v1 TO events_v1_away' });
      try {
        for (let pixel = 0; pixel < 2; pixel++) {
          const url = `${IMPRESSION_PATH}${signedToken(ctx, serveClaims(item, 'tCPM', 2_500_000))}`;
          expect((await fromAddress(ctx, url, ADDRESSES.comcastResidential)).statusCode).toBe(200);
        }
        const stuck = await ctx.app.inject({ method: 'GET', url: '/healthz' });
        expect(stuck.statusCode).toBe(503);
        expect(stuck.json()).toMatchObject({
          status: 'unavailable',
          checks: { postgres: 'ok', clickhouse: 'ok', spool: 'ok', event_backlog: 'failing' },
          event_backlog: { rows: 2 },
        });
      } finally {
        await ctx.stores.ch.client.command({ query: 'RENAME TABLE events_v1_away TO events_v1' });
      }
      await eventually(async () => ((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode === 200 ? true : undefined), 'health to recover');
    } finally {
      await ctx.close();
    }
  });
});
