import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, createPublisher, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { claimsOf, eventuallyServed, firePixel, keywordWithFallback, servableLineItem, serve, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

// The test's pixel requests come from 127.0.0.1: count them like a browser's.
const env = { IVT_ALLOW_PRIVATE_IPS: 'true' };

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher(env));
});
afterAll(async () => {
  await ctx.close();
});

describe('frequency caps: management', () => {
  it('stores a cap, clears it with null, and refuses a bad one naming every field', async () => {
    const call = asAdvertiser(ctx, advertiser.key);
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: [uniqueWord()] } },
      lineItem: { frequency_cap: { impressions: 3, per: 'day' } },
    });
    expect((await call('GET', `/v1/advertiser/line-items/${lineItemId}`)).json().data.frequency_cap).toEqual({ impressions: 3, per: 'day' });
    const refused = await call('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { title: '', frequency_cap: { impressions: 0, per: 'month' } });
    expect(refused.statusCode).toBe(422);
    expect(detailPaths(refused).sort()).toEqual([
      'frequency_cap.impressions',
      'frequency_cap.per',
      'title',
    ]);
    const cleared = await call('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { frequency_cap: null });
    expect(cleared.json().data.frequency_cap).toBeNull();
  });
});

describe('frequency caps: serving', () => {
  it('gives a user at the cap another line item, keeps other users and needs a user id, also after a restart', async () => {
    const placement = await createCertifiedPlacement(ctx, publisher.id);
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 100 },
      targeting: { keywords: { include: [word] } },
      lineItem: { frequency_cap: { impressions: 2, per: 'day' } },
    });
    const as = (id?: string) => ({ placement_id: placement, context: { query: word, response: '' }, ...(id ? { user: { id } } : {}) });
    // Not as alice: each serve to her would count against her cap until its pixel comes.
    await eventuallyServed(ctx, publisher.token, as('warm-up'), capped.lineItemId);
    // No user id: a capped line item cannot count, so it never serves.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as()))).toBe(fallback.lineItemId);

    for (let i = 0; i < 2; i++) {
      const response = await serve(ctx, publisher.token, as('alice'));
      expect(servedLineItem(ctx, response)).toBe(capped.lineItemId);
      // The link carries the keyed id, never the raw one.
      expect(claimsOf(ctx, response).k).toMatch(/^[A-Za-z0-9_-]{22}$/);
      await firePixel(ctx, response);
    }
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('alice')))).toBe(fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('bob')))).toBe(capped.lineItemId);

    // The impressions are stored under the keyed id.
    const stored = await eventually(async () => {
      const result = await ctx.stores.ch.client.query({
        query: `SELECT user_key FROM events_v1 WHERE line_item_id = {id:UUID} AND type = 'impression'`,
        query_params: { id: capped.lineItemId },
        format: 'JSONEachRow',
      });
      const rows = (await result.json()) as Array<{ user_key: string }>;
      return rows.length === 2 ? rows : undefined;
    }, 'the impressions in ClickHouse');
    expect(stored.every((row) => row.user_key.length === 22 && row.user_key !== 'alice')).toBe(true);

    await ctx.close();
    ctx = await startTestApp(env);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('alice')))).toBe(fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as('carol')))).toBe(capped.lineItemId);
  });

  it('caps a user id per publisher: another publisher\'s user of the same id is someone else, counted and held apart', async () => {
    const other = await createPublisher(ctx);
    const placements = [await createCertifiedPlacement(ctx, publisher.id), await createCertifiedPlacement(ctx, other.id)];
    const { word, fallback } = await keywordWithFallback(ctx, advertiser);
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 100 },
      targeting: { keywords: { include: [word] } },
      lineItem: { frequency_cap: { impressions: 2, per: 'day' } },
    });
    const as = (placement: string, id: string) => ({ placement_id: placement, context: { query: word, response: '' }, user: { id } });
    const [mine, theirs] = [as(placements[0]!, 'u-1'), as(placements[1]!, 'u-1')];
    await eventuallyServed(ctx, publisher.token, as(placements[0]!, 'warm-up'), capped.lineItemId);
    await eventuallyServed(ctx, other.token, as(placements[1]!, 'warm-up'), capped.lineItemId);

    const keys = new Set<string | undefined>();
    for (let i = 0; i < 2; i++) {
      const response = await serve(ctx, publisher.token, mine);
      expect(servedLineItem(ctx, response)).toBe(capped.lineItemId);
      keys.add(claimsOf(ctx, response).k);
      await firePixel(ctx, response);
    }
    // The first publisher's u-1 is at the cap; the other's u-1 has seen nothing, and is keyed apart.
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, mine))).toBe(fallback.lineItemId);
    const theirFirst = await serve(ctx, other.token, theirs);
    expect(servedLineItem(ctx, theirFirst)).toBe(capped.lineItemId);
    expect(keys.has(claimsOf(ctx, theirFirst).k)).toBe(false);
    // Outstanding serves too: two serves without pixels hold the other publisher's u-2 at the cap, not the first's.
    for (let i = 0; i < 2; i++) expect(servedLineItem(ctx, await serve(ctx, other.token, as(placements[1]!, 'u-2')))).toBe(capped.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, other.token, as(placements[1]!, 'u-2')))).toBe(fallback.lineItemId);
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, as(placements[0]!, 'u-2')))).toBe(capped.lineItemId);
  });
});
