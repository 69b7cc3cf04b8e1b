import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../helpers/testApp.js';
import { createAdvertiser, createCertifiedPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { eventuallyServed, placementInIndex, serve, servableLineItem, servedLineItem, uniqueWord, type Advertiser } from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { realSemanticModel } from '../helpers/wordVectors.js';
import { contractSchema } from '../helpers/contract.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string; token_id: string };
let placementId: string;
const validPreview = contractSchema('#/components/schemas/MatchPreview');

beforeAll(async () => {
  realSemanticModel();
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher());
  placementId = await placementInIndex(ctx, publisher);
}, 120_000);
afterAll(async () => {
  await ctx.close();
});

const shoes = {
  format: 'contextual_card',
  title: 'Run lighter',
  body: 'Cushioned running shoes for every distance.',
  cta: 'Shop now',
  destination_url: 'https://shoes.example/run',
};
const marathon = { query: 'what should I wear for my first marathon?', response: 'Light, breathable clothes and well cushioned trainers you have already run in.' };

function preview(key: string, lineItemId: string, body: unknown) {
  return asAdvertiser(ctx, key)('POST', `/v1/advertiser/line-items/${lineItemId}/match-preview`, body as object);
}

/** A preview that answered 200 with a body the contract describes. */
async function previewed(lineItemId: string, context: { query: string; response: string }, extra: object = {}) {
  const response = await preview(advertiser.key, lineItemId, { context, ...extra });
  expect(response.statusCode, response.body).toBe(200);
  const { data } = response.json() as { data: Record<string, unknown> };
  expect(validPreview(data), JSON.stringify(validPreview.errors)).toBe(true);
  return data;
}

describe('POST /v1/advertiser/line-items/:id/match-preview', () => {
  it('gives the similarity a serve would compute, matching or not, with the line item\'s threshold', async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['running shoes'], exclude: ['sandals'] }, semantic: { enabled: true, min_similarity: 0.55 }, placements: { include: [placementId] } },
      creatives: [shoes],
    });
    await eventually(async () => (servedLineItem(ctx, await serve(ctx, publisher.token, { placement_id: placementId, context: marathon })) === lineItemId ? true : undefined), 'served by similarity');

    const served = (await serve(ctx, publisher.token, { placement_id: placementId, context: marathon, explain: true })).json() as { match: { by: string; similarity: number } };
    expect(served.match.by).toBe('similarity');
    const similar = await previewed(lineItemId, marathon);
    expect(similar).toMatchObject({
      line_item_id: lineItemId,
      would_match: true,
      matched_by: 'similarity',
      keywords: { include_found: [], exclude_found: [] },
      similarity: { enabled: true, similarity: served.match.similarity, min_similarity: 0.55, matches: true },
      brand_safety: null,
      held_back: [],
      depends_on: ['placements'],
    });

    // Below the threshold: what `explain` on a serve cannot show (it answers {by: 'none'}).
    const below = await previewed(lineItemId, { query: marathon.query, response: 'Sure, here are some thoughts.' });
    expect(below).toMatchObject({ would_match: false, matched_by: null, similarity: { enabled: true, min_similarity: 0.55, matches: false } });
    const score = (below.similarity as { similarity: number }).similarity;
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(0.55);

    expect(await previewed(lineItemId, { query: 'best running shoes for flat feet?', response: '' })).toMatchObject({
      would_match: true,
      matched_by: 'keywords',
      keywords: { include_found: ['running shoes'], exclude_found: [] },
    });
    expect(await previewed(lineItemId, { query: 'running shoes or sandals for the beach?', response: '' })).toMatchObject({
      would_match: false,
      matched_by: null,
      keywords: { include_found: ['running shoes'], exclude_found: ['sandals'] },
    });
  });

  it('judges the threshold as written right after a write, before the index has taken it', async () => {
    const targeting = { keywords: { include: ['trail running'] }, semantic: { enabled: true, min_similarity: 0.95 }, placements: { include: [placementId] } };
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting, creatives: [shoes] });
    await eventually(async () => ((await previewed(lineItemId, marathon)).held_back as string[]).length === 0 || undefined, 'in the index');
    expect(await previewed(lineItemId, marathon)).toMatchObject({ would_match: false, similarity: { min_similarity: 0.95, matches: false } });
    const lowered = await asAdvertiser(ctx, advertiser.key)('PUT', `/v1/advertiser/line-items/${lineItemId}/targeting`, { ...targeting, semantic: { enabled: true, min_similarity: 0.1 } });
    expect(lowered.statusCode, lowered.body).toBe(200);
    expect(await previewed(lineItemId, marathon)).toMatchObject({ would_match: true, matched_by: 'similarity', similarity: { min_similarity: 0.1, matches: true } });
  });

  it('says which topic brand safety vetoes, and what holds the line item back now', async () => {
    const { campaignId, lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: ['running shoes'] }, languages: ['en'], countries: { include: ['DE'] } },
      creatives: [shoes],
      bids: { bid_type: 'cpm', bid_value: 5 },
    });
    await eventually(async () => ((await previewed(lineItemId, { query: 'running shoes?', response: '' })).held_back as string[]).length === 0 || undefined, 'line item in index');
    expect(await previewed(lineItemId, { query: 'my dad passed away, should I keep his running shoes?', response: '' })).toMatchObject({
      would_match: false,
      matched_by: 'keywords',
      brand_safety: { topic: 'bereavement', judged_by: 'phrase' },
    });
    expect(await previewed(lineItemId, { query: 'welche running shoes?', response: '' }, { language: 'de' })).toMatchObject({
      would_match: false,
      matched_by: 'keywords',
      held_back: ['language'],
      depends_on: ['certification', 'countries'],
    });

    // A draft without creatives is not servable, so not in the index.
    const created = await asAdvertiser(ctx, advertiser.key)('POST', `/v1/advertiser/campaigns/${campaignId}/line-items`, { title: 'Bare', targeting: { keywords: { include: ['running shoes'] } } });
    const bare = created.json().data.id as string;
    expect(await previewed(bare, { query: 'running shoes?', response: '' })).toMatchObject({ would_match: false, matched_by: 'keywords', held_back: ['not_in_index'], similarity: { similarity: null } });
  });

  it('says outstanding_serves when the serve holds the line item back for what its outstanding serves are expected to cost, as the serve does', async () => {
    const word = uniqueWord();
    const certified = await createCertifiedPlacement(ctx, publisher.id);
    await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 0.01 }, targeting: { keywords: { include: [word] } } });
    // 10 USD an impression against 15 USD a day: two serves waiting for their pixels hold 20 USD.
    const held = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 10_000 }, budget: { daily: 15, currency: 'USD', pacing: 'asap' }, targeting: { keywords: { include: [word] } } });
    const body = { placement_id: certified, context: { query: word, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, held.lineItemId);
    const winners: string[] = [];
    for (let i = 0; i < 2; i++) winners.push(servedLineItem(ctx, await serve(ctx, publisher.token, body)) ?? 'none');
    expect(winners.at(-1)).not.toBe(held.lineItemId);
    const response = await preview(advertiser.key, held.lineItemId, { context: { query: word, response: '' } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ would_match: false, held_back: ['outstanding_serves'] });
  });

  it("answers 404 for another organization's line item and an unknown one, 422 for a bad body, 401 without a key", async () => {
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: ['running shoes'] } }, creatives: [shoes] });
    const other = await createAdvertiser(ctx);
    const foreign = await preview(other.key, lineItemId, { context: marathon });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await preview(advertiser.key, '00000000-0000-4000-8000-000000000000', { context: marathon })).statusCode).toBe(404);

    const tooLong = await preview(advertiser.key, lineItemId, { context: { query: 'x'.repeat(4001), response: '' } });
    expect(tooLong.statusCode).toBe(422);
    expect(JSON.stringify(tooLong.json().error.details)).toContain('query');
    expect((await preview(advertiser.key, lineItemId, { context: marathon, placement_id: placementId })).statusCode).toBe(422);
    expect((await preview(advertiser.key, lineItemId, {})).statusCode).toBe(422);
    expect((await preview(advertiser.key, 'not-a-uuid', { context: marathon })).statusCode).toBe(404);
    const anonymous = await ctx.app.inject({ method: 'POST', url: `/v1/advertiser/line-items/${lineItemId}/match-preview`, payload: { context: marathon } });
    expect(anonymous.statusCode).toBe(401);
  });
});
