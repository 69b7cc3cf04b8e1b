import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext } from './testApp.js';
import { eventually } from './eventually.js';
import { BROWSER_UA } from './trackingFixtures.js';
import { asAdvertiser, validCreative } from './managementFactories.js';
import { createPlacement } from './factories.js';
import { verifyTrackingToken, type TrackingClaims } from '../../src/tracking/trackingToken.js';
import type { TrackedEvent } from '../../src/tracking/trackedEvent.js';

/** Fixtures for serving tests: servable line items through the Management API, serves, and their claims. */

export interface Advertiser {
  key: string;
  userId: string;
}

export interface LineItemSpec {
  bids?: { bid_type: string; bid_value: number };
  budget?: { daily: number; currency: string; lifetime?: number; pacing?: 'even' | 'asap' };
  targeting?: object;
  creatives?: object[] | null;
  brandName?: string;
  /** More campaign fields (a flight). */
  campaign?: object;
  /** More line item fields (frequency_cap). */
  lineItem?: object;
}

/** The management tests' valid creative under a title of its own, so tests can tell cards apart. */
export function creative(title = `Card ${randomUUID().slice(0, 6)}`) {
  return { ...validCreative, title };
}

/** A word no other test uses, so a test's keyword targeting sees only its own line items. */
export function uniqueWord(prefix = 'kw'): string {
  return `${prefix}${randomUUID().replace(/-/g, '').slice(0, 10)}`;
}

/** An active campaign with one active line item, through compose and activate. */
export async function servableLineItem(ctx: TestContext, advertiser: Advertiser, spec: LineItemSpec = {}) {
  const composed = await asAdvertiser(ctx, advertiser.key)('POST', '/v1/advertiser/campaigns/compose', {
    campaign: { name: 'Serving test', brand_name: spec.brandName ?? 'Brandco', user_id: advertiser.userId, ...spec.campaign },
    line_item: {
      title: 'Line item',
      // asap: servable at any hour. Even pacing releases budget x (elapsed + 1 h) / 24 h, 52 USD of
      // 1,000 at 00:15 UTC, which one 50 USD tCPM serve's hold or two 34 USD CPC ones used up: tests
      // of ranking then failed in the first hour of every UTC day (the CI run at 00:05 did). Tests of
      // pacing name their budget.
      budget: spec.budget ?? { daily: 1000, currency: 'USD', pacing: 'asap' },
      bids: spec.bids ?? { bid_type: 'cpc', bid_value: 100 },
      targeting: spec.targeting ?? {},
      ...(spec.creatives === null ? {} : { creatives: spec.creatives ?? [creative()] }),
      ...spec.lineItem,
    },
  });
  if (composed.statusCode !== 201) throw new Error(`compose: ${composed.statusCode} ${composed.body}`);
  const { campaign, line_item } = composed.json().data as { campaign: { id: string }; line_item: { id: string } };
  const activated = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/campaigns/${campaign.id}/activate`);
  if (activated.statusCode !== 200) throw new Error(`activate: ${activated.statusCode} ${activated.body}`);
  return { campaignId: campaign.id, lineItemId: line_item.id };
}

/**
 * A fresh keyword and a cheap line item on it (CPC 0.01 USD unless told), which serves where the line
 * item under test, on the same keyword, does not: so a test tells "held back" from "nothing to serve".
 */
export async function keywordWithFallback(ctx: TestContext, advertiser: Advertiser, fallbackCpc = 0.01) {
  const word = uniqueWord();
  const fallback = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: fallbackCpc }, targeting: { keywords: { include: [word] } } });
  return { word, fallback };
}

export async function changeCampaign(ctx: TestContext, advertiser: Advertiser, campaignId: string, patch: object) {
  const response = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/campaigns/${campaignId}`, patch);
  if (response.statusCode !== 200) throw new Error(`patch campaign: ${response.statusCode} ${response.body}`);
}

export async function putLineItem(ctx: TestContext, advertiser: Advertiser, lineItemId: string, part: 'bids' | 'budget' | 'targeting', body: object) {
  const response = await asAdvertiser(ctx, advertiser.key)('PUT', `/v1/advertiser/line-items/${lineItemId}/${part}`, body);
  if (response.statusCode !== 200) throw new Error(`put ${part}: ${response.statusCode} ${response.body}`);
}

export interface ServeBody {
  placement_id: string;
  context?: { query: string; response: string };
  [field: string]: unknown;
}

export function serve(ctx: TestContext, token: string | undefined, body: ServeBody | string): Promise<LightMyRequestResponse> {
  const payload = typeof body === 'string' ? body : { context: { query: '', response: '' }, ...body };
  return ctx.app.inject({
    method: 'POST',
    url: '/v1/serve',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    payload,
  });
}

/** A new placement of the publisher, once serve answers for it: a new placement and token reach the index with its next refresh. */
export async function placementInIndex(ctx: TestContext, publisher: { id: string; token: string }): Promise<string> {
  const { id } = await createPlacement(ctx, publisher.id);
  await eventually(async () => ((await serve(ctx, publisher.token, { placement_id: id })).statusCode === 200 ? true : undefined), 'placement in index');
  return id;
}

/** The verified claims of a served ad's links (throws when the links do not verify or differ). */
export function claimsOf(ctx: TestContext, response: LightMyRequestResponse): TrackingClaims {
  const ad = response.json().ad as { tracking: { impression_url: string; click_url: string } } | null;
  if (!ad) throw new Error(`no ad served: ${response.body}`);
  const token = ad.tracking.impression_url.split('/').pop()!;
  if (ad.tracking.click_url.split('/').pop() !== token) throw new Error('impression and click links carry different tokens');
  const verdict = verifyTrackingToken(token, ctx.secrets.trackingSecret);
  if (!verdict.valid) throw new Error(`token does not verify: ${verdict.reason}`);
  return verdict.claims;
}

/** The line item a serve returned, or null for no ad. */
export function servedLineItem(ctx: TestContext, response: LightMyRequestResponse): string | null {
  if (response.statusCode !== 200) throw new Error(`serve: ${response.statusCode} ${response.body}`);
  return response.json().ad === null ? null : claimsOf(ctx, response).l;
}

/**
 * Serves until the given line item is (or is no longer) the one served, and gives back that serve's
 * answer: a serve like any other, whose expected cost the line item's budget holds until its event
 * comes (SpendPacing.served). A 401 or 404 while waiting means a new publisher token or placement
 * has not reached the index yet.
 */
export function eventuallyServed(ctx: TestContext, token: string, body: ServeBody, lineItemId: string, served = true): Promise<LightMyRequestResponse> {
  return eventually(async () => {
    const response = await serve(ctx, token, body);
    if (response.statusCode === 401 || response.statusCode === 404) return undefined;
    const lineItem = servedLineItem(ctx, response);
    return (lineItem === lineItemId) === served ? response : undefined;
  }, `line item ${lineItemId} ${served ? 'to be served' : 'to stop being served'}`);
}

/**
 * Writes rows straight into a ClickHouse table, as another instance's event pipeline would. Each
 * insert carries its own deduplication token: chdb keeps a previous insert's token for the session.
 */
export async function insertRows(ctx: TestContext, table: string, values: object[]): Promise<void> {
  await ctx.stores.ch.client.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: randomUUID() } });
}

export async function insertEvents(ctx: TestContext, events: TrackedEvent[]): Promise<void> {
  await insertRows(
    ctx,
    'events_v1',
    events.map((event) => ({ ...event, event_time: new Date(event.event_time).toISOString().replace('T', ' ').replace('Z', '') })),
  );
}

/** Loads the impression pixel of a served ad the way a browser does, and expects it kept. */
export async function firePixel(ctx: TestContext, response: LightMyRequestResponse): Promise<void> {
  const url = new URL(response.json().ad.tracking.impression_url);
  const pixel = await ctx.app.inject({ method: 'GET', url: url.pathname, headers: { 'user-agent': BROWSER_UA } });
  if (pixel.statusCode !== 200) throw new Error(`impression pixel: ${pixel.statusCode} ${pixel.body}`);
}
