import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { signTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import { createAdvertiser, createPlacement, createPublisher } from './factories.js';
import { composeCampaign, validCreative } from './managementFactories.js';
import type { TestContext } from './testApp.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';
import { MIN_CLICK_DELAY_MS } from '../../src/tracking/linkTracker.js';
import { CLICK_PATH, IMPRESSION_PATH } from '../../src/tracking/trackingLinks.js';
import { eventually } from './eventually.js';

/** Fixtures for tracking tests: a campaign with a creative, signed links, requests from given addresses, and ClickHouse polling. */

export const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** Addresses whose networks @ip-location-db/asn confirms (see test/unit/ivtIpClassifier.test.ts). */
export const ADDRESSES = {
  comcastResidential: '73.162.10.20',
  telekomResidentialV6: '2003:e1:bf00::1',
  awsV4: '3.5.140.2',
  googleCloudV4: '34.102.136.180',
  hetznerV6: '2a01:4f8:c17:1::1',
  azureV6: '2603:1030:c06:6::1',
  cloudflareWarp: '104.28.1.1',
} as const;

let readers = Math.floor(Math.random() * 60_000);

/**
 * A residential address of its own (Comcast's 73.162.0.0/16, every address of which classifies as
 * public, in the US): one reader. Tests that click for other reasons than click velocity take one
 * per test or per serve, as separate readers would, so their clicks never add up to one visitor's
 * pace (src/tracking/clickVelocity.ts). Consecutive readers are in different /24s, so a test's
 * readers never add up to one block's pace in a placement either (placement_click_velocity).
 */
export function readerAddress(): string {
  readers = (readers + 1) % 64_516;
  return `73.162.${1 + (readers % 254)}.${1 + Math.floor(readers / 254)}`;
}

export const DESTINATION = 'https://shop.example.com/landing?utm_source=adsvc&q=a%20b#offer';

export interface TrackedLineItem {
  key: string;
  organizationId: string;
  campaignId: string;
  lineItemId: string;
  creativeId: string;
  placementId: string;
  publisherId: string;
}

/**
 * A campaign whose one line item has the given bids and a creative pointing at DESTINATION. Its
 * budget is `asap` unless the test says otherwise, as servingFixtures' are: its links are signed by
 * the test, not served, and the billing ceilings do not pace, but a test that serves it must not
 * depend on the hour (paced even, right after 00:00 UTC a day releases 1/24 of its budget).
 */
export async function trackedLineItem(
  ctx: TestContext,
  bids: { bid_type: string; bid_value: number } = { bid_type: 'cpm', bid_value: 2.5 },
  budget: { daily: number; currency: string; pacing?: 'even' | 'asap' } = { daily: 100, currency: 'USD', pacing: 'asap' },
): Promise<TrackedLineItem> {
  const advertiser = await createAdvertiser(ctx);
  const { campaignId, lineItemId } = await composeCampaign(ctx, advertiser.key, advertiser.user.id, {
    line_item: {
      bids,
      budget,
      creatives: [{ ...validCreative, destination_url: DESTINATION }],
    },
  });
  const { rows } = await ctx.stores.db.query<{ id: string }>('SELECT id FROM creatives WHERE line_item_id = $1', [lineItemId]);
  const publisher = await createPublisher(ctx);
  const placement = await createPlacement(ctx, publisher.id);
  return {
    key: advertiser.key,
    organizationId: advertiser.organization.id,
    campaignId,
    lineItemId,
    creativeId: rows[0]!.id,
    placementId: placement.id,
    publisherId: publisher.id,
  };
}

/** Claims of a fresh serve of the line item; the price is what the test says the link charges. */
export function serveClaims(item: TrackedLineItem, model: TrackingClaims['m'], priceNanos: number, overrides: Partial<TrackingClaims> = {}): TrackingClaims {
  const now = Date.now();
  return {
    s: randomBytes(16).toString('base64url'),
    c: item.campaignId,
    l: item.lineItemId,
    r: item.creativeId,
    p: item.placementId,
    u: item.publisherId,
    m: model,
    n: priceNanos,
    e: Math.floor(now / 1000) + 3600,
    t: now,
    ...overrides,
  };
}

export function signedToken(ctx: TestContext, claims: TrackingClaims): string {
  return signTrackingToken(claims, ctx.secrets.trackingSecret);
}

/** The path of a token's impression pixel. */
export const pixelUrl = (token: string) => `${IMPRESSION_PATH}${token}`;
/** The path of a token's click redirect. */
export const clickUrl = (token: string) => `${CLICK_PATH}${token}`;

/** A request through the trusted proxy (127.0.0.1) on behalf of `ip`, with any other headers the client sends. */
export function fromAddress(
  ctx: TestContext,
  url: string,
  ip: string,
  userAgent = BROWSER_UA,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'GET',
    url,
    remoteAddress: '127.0.0.1',
    headers: { ...headers, 'x-forwarded-for': ip, 'user-agent': userAgent },
  });
}

/** A row of events_v1 as eventsOf reads it back: every column but the time and the creative. */
export type StoredEvent = Omit<TrackedEvent, 'event_time' | 'creative_id'>;

/** The line item's events in ClickHouse, oldest first. */
export async function eventsOf(ctx: TestContext, lineItemId: string): Promise<StoredEvent[]> {
  const result = await ctx.stores.ch.client.query({
    query: `SELECT event_id, type, source, serve_id, campaign_id,
                   line_item_id, placement_id, publisher_id, price_model,
                   toFloat64(cost_nanos) AS cost_nanos, toFloat64(revenue_nanos) AS revenue_nanos, click_id,
                   ip, ip_class, ip_network, country, user_agent, ivt, fetch_dest, fetch_mode, fetch_site, toFloat64(price_nanos) AS price_nanos
            FROM events_v1 WHERE line_item_id = {id:UUID} ORDER BY event_time, type`,
    query_params: { id: lineItemId },
    format: 'JSONEachRow',
  });
  return result.json<StoredEvent>();
}

/** Polls until the line item has `count` events in ClickHouse (the pipeline flushes every 100 ms in tests). */
export function waitForEvents(ctx: TestContext, lineItemId: string, count: number, timeoutMs = 10_000): Promise<StoredEvent[]> {
  return eventually(
    async () => {
      const events = await eventsOf(ctx, lineItemId);
      return events.length >= count ? events : undefined;
    },
    `${count} events of line item ${lineItemId}`,
    timeoutMs,
  );
}

/**
 * Waits until a click on a serve whose impression pixel was answered at `impressionAnsweredAt`
 * is later than MIN_CLICK_DELAY_MS after it (the tracker's own rule and figure), so the click is
 * not click_too_fast. The tracker timed the impression before it answered, never after.
 */
export async function waitPastClickDelay(impressionAnsweredAt: number): Promise<void> {
  await eventually(async () => (Date.now() - impressionAnsweredAt > MIN_CLICK_DELAY_MS ? true : undefined), 'the minimum click delay to pass', MIN_CLICK_DELAY_MS + 10_000, 20);
}

/**
 * A click through the redirect on a fresh serve of the line item, after its impression and past the
 * minimum click delay, both from `reader` (valid unless the user agent says otherwise). Waits until
 * ClickHouse holds both events, and gives back the click id the destination got: what a conversion names.
 */
export async function clickedServe(
  ctx: TestContext,
  item: TrackedLineItem,
  model: 'CPC' | 'CPA',
  priceNanos: number,
  { reader = readerAddress(), userAgent }: { reader?: string; userAgent?: string } = {},
): Promise<string> {
  const token = signedToken(ctx, serveClaims(item, model, priceNanos));
  const before = (await eventsOf(ctx, item.lineItemId)).length;
  await fromAddress(ctx, pixelUrl(token), reader);
  await waitPastClickDelay(Date.now());
  const response = await fromAddress(ctx, clickUrl(token), reader, userAgent);
  await waitForEvents(ctx, item.lineItemId, before + 2);
  return new URL(response.headers.location as string).searchParams.get('adsvc_click_id')!;
}

/** What reporting and billing see: the valid-event rollup of the line item. */
export async function rollupOf(ctx: TestContext, lineItemId: string) {
  const result = await ctx.stores.ch.client.query({
    query: `SELECT toFloat64(sum(impressions)) AS impressions, toFloat64(sum(clicks)) AS clicks, toFloat64(sum(conversions)) AS conversions,
                   toFloat64(sum(spend_nanos)) AS spend_nanos, toFloat64(sum(revenue_nanos)) AS revenue_nanos
            FROM daily_stats_v1 WHERE line_item_id = {id:UUID}`,
    query_params: { id: lineItemId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ impressions: number; clicks: number; conversions: number; spend_nanos: number; revenue_nanos: number }>();
  return row!;
}
