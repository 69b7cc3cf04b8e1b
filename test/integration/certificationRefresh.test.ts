import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createPlacement, createPublisher } from '../helpers/factories.js';
import { serve, servableLineItem, servedLineItem, uniqueWord } from '../helpers/servingFixtures.js';

// The periodic index refresh is an hour away: whatever these tests serve after a certification
// change can only come from the refresh the change itself asked for. The change log is pruned less
// often still, as the configuration requires.
const NO_PERIODIC_REFRESH = { INDEX_REFRESH_MS: '3600000', INDEX_CHANGES_PRUNE_MS: '7200000' };

let ctx: TestContext;
let publisher: { id: string; token: string };
let word: string;
let cpm: string;
let cpc: string;
let placements: { certify: string; review: string };

beforeAll(async () => {
  ctx = await startTestApp(NO_PERIODIC_REFRESH);
  const advertiser = await createAdvertiser(ctx);
  publisher = await createPublisher(ctx);
  placements = { certify: (await createPlacement(ctx, publisher.id)).id, review: (await createPlacement(ctx, publisher.id)).id };
  word = uniqueWord();
  const targeting = { keywords: { include: [word] } };
  cpm = (await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting })).lineItemId;
  cpc = (await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting })).lineItemId;
  // A restart builds the index that holds the publisher, both uncertified placements and both line items.
  await ctx.close();
  ctx = await startTestApp(NO_PERIODIC_REFRESH);
});
afterAll(async () => {
  await ctx.close();
});

async function served(placementId: string): Promise<string | null> {
  return servedLineItem(ctx, await serve(ctx, publisher.token, { placement_id: placementId, context: { query: `what about ${word}?`, response: `On ${word}.` } }));
}

describe('certification changes reach serving at once', () => {
  it('serves tCPM demand from the request after an operator certifies, and stops after a revoke', async () => {
    expect(await served(placements.certify)).toBe(cpc);
    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placements.certify}/certify` })).statusCode).toBe(200);
    expect(await served(placements.certify)).toBe(cpm);
    expect((await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placements.certify}/revoke` })).statusCode).toBe(200);
    expect(await served(placements.certify)).toBe(cpc);
  });

  it('serves tCPM demand from the request after an integration review is approved', async () => {
    expect(await served(placements.review)).toBe(cpc);
    const requested = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publisher/integration-reviews',
      headers: { authorization: `Bearer ${publisher.token}` },
      payload: { placement_ids: [placements.review] },
    });
    expect(requested.statusCode).toBe(201);
    const approved = await ctx.admin({ method: 'POST', url: `/v1/admin/integration-reviews/${requested.json().data.id}/approve` });
    expect(approved.statusCode).toBe(200);
    expect(await served(placements.review)).toBe(cpm);
  });
});
