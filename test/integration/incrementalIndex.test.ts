import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startAnotherInstance, testDatabaseUrl, type TestContext } from '../helpers/testApp.js';
import { eventually } from '../helpers/eventually.js';
import { createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import {
  changeCampaign,
  creative,
  eventuallyServed,
  putLineItem,
  serve,
  servableLineItem,
  servedLineItem,
  uniqueWord,
  type Advertiser,
} from '../helpers/servingFixtures.js';
import { metricSample } from '../helpers/metricSample.js';

// Every change below reaches serving by a patch of the index built at start: each test ends by
// checking, through /metrics, that the index was built exactly once.

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string; token_id: string };
let placementId: string;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher());
  placementId = (await createPlacement(ctx, publisher.id)).id;
});
afterAll(async () => {
  await ctx.close();
});

const builds = (on: TestContext) => metricSample(on, 'adsvc_ad_index_rebuild_seconds_count');

function about(word: string, placement = placementId) {
  return { placement_id: placement, context: { query: `what about ${word}?`, response: `On ${word}.` } };
}

async function servedFor(on: TestContext, word: string, placement = placementId): Promise<string | null> {
  return servedLineItem(on, await serve(on, publisher.token, about(word, placement)));
}

describe('the ad index follows catalog changes without a rebuild', () => {
  it('serves a raised bid and a new keyword, and drops the old keyword', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const low = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting });
    const high = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 2 }, targeting });
    await eventuallyServed(ctx, publisher.token, about(word), high.lineItemId);

    await putLineItem(ctx, advertiser, low.lineItemId, 'bids', { bid_type: 'cpc', bid_value: 3 });
    await eventuallyServed(ctx, publisher.token, about(word), low.lineItemId);

    const other = uniqueWord();
    await putLineItem(ctx, advertiser, low.lineItemId, 'targeting', { keywords: { include: [other] } });
    await eventuallyServed(ctx, publisher.token, about(other), low.lineItemId);
    expect(await servedFor(ctx, word)).toBe(high.lineItemId);
    expect(await builds(ctx)).toBe(1);
  });

  it('stops serving a paused line item, a paused campaign and a deleted campaign', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const first = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 3 }, targeting });
    const second = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 2 }, targeting });
    const third = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting });
    await eventuallyServed(ctx, publisher.token, about(word), first.lineItemId);

    const paused = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${first.lineItemId}`, { status: 'paused' });
    expect(paused.statusCode).toBe(200);
    await eventuallyServed(ctx, publisher.token, about(word), second.lineItemId);

    await changeCampaign(ctx, advertiser, second.campaignId, { status: 'paused' });
    await eventuallyServed(ctx, publisher.token, about(word), third.lineItemId);

    await changeCampaign(ctx, advertiser, third.campaignId, { status: 'paused' });
    const deleted = await asAdvertiser(ctx, advertiser.key)('DELETE', `/v1/advertiser/campaigns/${third.campaignId}`);
    expect(deleted.statusCode).toBe(204);
    await eventually(async () => ((await servedFor(ctx, word)) === null ? true : undefined), 'no ad for the word');
    expect(await builds(ctx)).toBe(1);
  });

  it('serves a creative added to a served line item', async () => {
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const added = creative('Added later');
    const response = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/line-items/${lineItemId}/creatives`, { creatives: [added] });
    expect(response.statusCode).toBe(201);
    // The line item rotates its creatives: the new one comes up within a few serves once indexed.
    await eventually(async () => {
      const served = await serve(ctx, publisher.token, about(word));
      return served.json().ad?.render?.title === 'Added later' ? true : undefined;
    }, 'the added creative to be served');
    expect(await builds(ctx)).toBe(1);
  });

  it('serves tCPM demand on a placement once certified, not after a revoke, and a new placement at once', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting });
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting });
    const placement = (await createPlacement(ctx, publisher.id)).id;
    await eventuallyServed(ctx, publisher.token, about(word, placement), cpc.lineItemId);

    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement}/certify` })).statusCode).toBe(200);
    await eventuallyServed(ctx, publisher.token, about(word, placement), cpm.lineItemId);
    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement}/revoke` })).statusCode).toBe(200);
    await eventuallyServed(ctx, publisher.token, about(word, placement), cpc.lineItemId);
    expect(await builds(ctx)).toBe(1);
  });

  it('refuses a revoked publisher token and accepts a new one', async () => {
    const word = uniqueWord();
    await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    const issued = await ctx.admin({ method: 'POST', url: `/v1/admin/publishers/${publisher.id}/tokens` });
    expect(issued.statusCode).toBe(201);
    const token = issued.json().data as { id: string; token: string };
    await eventually(async () => ((await serve(ctx, token.token, about(word))).statusCode === 200 ? true : undefined), 'the new token to serve');

    expect((await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${token.id}` })).statusCode).toBe(204);
    await eventually(async () => ((await serve(ctx, token.token, about(word))).statusCode === 401 ? true : undefined), 'the revoked token to be refused');
    expect((await serve(ctx, publisher.token, about(word))).statusCode).toBe(200);
    expect(await builds(ctx)).toBe(1);
  });
});

describe('many changes in one poll', () => {
  it('applies every change committed before the poll, in one patch', async () => {
    // No periodic poll for an hour: the one poll is the one a certification asks for. (It prunes less often still, as the configuration requires.)
    const quiet = await startAnotherInstance(ctx, { INDEX_REFRESH_MS: '3600000', INDEX_CHANGES_PRUNE_MS: '7200000' });
    try {
      const word = uniqueWord();
      const targeting = { keywords: { include: [word] } };
      const items = [];
      for (let i = 0; i < 6; i++) items.push(await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 + i }, targeting }));
      const trigger = (await createPlacement(ctx, publisher.id)).id;
      expect((await quiet.admin({ method: 'POST', url: `/v1/admin/placements/${trigger}/certify` })).statusCode).toBe(200);
      const before = await metricSample(quiet, 'adsvc_ad_index_changes_total');
      expect(await servedFor(quiet, word)).toBe(items[5]!.lineItemId);

      // The best three are paused and the worst is bid up to the top of the rest, then one poll.
      for (const item of items.slice(3)) {
        expect((await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${item.lineItemId}`, { status: 'paused' })).statusCode).toBe(200);
      }
      await putLineItem(ctx, advertiser, items[0]!.lineItemId, 'bids', { bid_type: 'cpc', bid_value: 100 });
      expect((await quiet.admin({ method: 'POST', url: `/v1/admin/placements/${trigger}/revoke` })).statusCode).toBe(200);

      expect(await servedFor(quiet, word)).toBe(items[0]!.lineItemId);
      await putLineItem(ctx, advertiser, items[0]!.lineItemId, 'bids', { bid_type: 'cpc', bid_value: 0.5 });
      expect((await quiet.admin({ method: 'POST', url: `/v1/admin/placements/${trigger}/certify` })).statusCode).toBe(200);
      expect(await servedFor(quiet, word)).toBe(items[2]!.lineItemId);
      expect(await metricSample(quiet, 'adsvc_ad_index_changes_total')).toBeGreaterThanOrEqual(before + 6);
      expect(await builds(quiet)).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});

describe('embedded PGlite: every catalog write is this process\'s own', () => {
  it.skipIf(testDatabaseUrl !== undefined)('reaches serving at its commit, with no poll due for an hour', async () => {
    const quiet = await startAnotherInstance(ctx, { INDEX_REFRESH_MS: '3600000', INDEX_REFRESH_NOTIFIED_MS: '3600000', INDEX_CHANGES_PRUNE_MS: '7200000' });
    try {
      const word = uniqueWord();
      const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
      await eventuallyServed(quiet, publisher.token, about(word), lineItemId);
      const paused = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'paused' });
      expect(paused.statusCode).toBe(200);
      await eventuallyServed(quiet, publisher.token, about(word), lineItemId, false);
      expect(await builds(quiet)).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});

describe('several instances on one Postgres', () => {
  it('a change made through one instance reaches the other, which prunes the log it has read', async () => {
    // Pruning every second needs reads at least every half second: on PGlite that is INDEX_REFRESH_NOTIFIED_MS (tests read a server every 100 ms).
    const other = await startAnotherInstance(ctx, { INDEX_CHANGES_PRUNE_MS: '1000', INDEX_REFRESH_NOTIFIED_MS: '250' });
    try {
      const word = uniqueWord();
      const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
      await eventuallyServed(other, publisher.token, about(word), lineItemId);
      await eventually(
        async () => ((await ctx.stores.db.query<{ n: number }>('SELECT count(*)::int AS n FROM catalog_changes')).rows[0]!.n === 0 ? true : undefined),
        'the change log to be pruned',
        20_000,
      );
      // Both instances read past the pruned changes: neither had to rebuild, and both keep following.
      const paused = await asAdvertiser(ctx, advertiser.key)('PATCH', `/v1/advertiser/line-items/${lineItemId}`, { status: 'paused' });
      expect(paused.statusCode).toBe(200);
      await eventuallyServed(other, publisher.token, about(word), lineItemId, false);
      await eventuallyServed(ctx, publisher.token, about(word), lineItemId, false);
      expect(await builds(other)).toBe(1);
      expect(await builds(ctx)).toBe(1);
    } finally {
      await other.close();
    }
  });

  it.skipIf(testDatabaseUrl === undefined)('sees a change whose transaction commits after later ones were read', async () => {
    const word = uniqueWord();
    const targeting = { keywords: { include: [word] } };
    const late = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 5 }, targeting });
    const early = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting });
    await eventuallyServed(ctx, publisher.token, about(word), late.lineItemId);

    const client = new pg.Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      // A long transaction writes its change first (the lower catalog_changes id) and commits last.
      await client.query('BEGIN');
      await client.query(`UPDATE line_items SET status = 'paused' WHERE id = $1`, [late.lineItemId]);
      await putLineItem(ctx, advertiser, early.lineItemId, 'bids', { bid_type: 'cpc', bid_value: 4 });
      const other = uniqueWord();
      await putLineItem(ctx, advertiser, early.lineItemId, 'targeting', { keywords: { include: [word, other] } });
      // The index has read the later changes (it serves the new keyword) while the first is uncommitted.
      await eventuallyServed(ctx, publisher.token, about(other), early.lineItemId);
      expect(await servedFor(ctx, word)).toBe(late.lineItemId);
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    await eventuallyServed(ctx, publisher.token, about(word), early.lineItemId);
    expect(await builds(ctx)).toBe(1);
  });
});
