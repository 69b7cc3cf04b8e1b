import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnotherInstance, type TestContext } from '../helpers/testApp.js';
import { asAdvertiser } from '../helpers/managementFactories.js';
import { createCertifiedPlacement, createPlacement, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import {
  changeCampaign,
  claimsOf,
  creative,
  eventuallyServed,
  insertEvents,
  insertRows,
  putLineItem,
  serve,
  servableLineItem,
  servedLineItem,
  uniqueWord,
  type Advertiser,
} from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { sampleEvent } from '../helpers/sampleEvent.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string };

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher({ SELECTION_STATS_REFRESH_MS: '300' }));
});
afterAll(async () => {
  await ctx.close();
});

async function newPlacement(certified = false): Promise<string> {
  return certified ? createCertifiedPlacement(ctx, publisher.id) : (await createPlacement(ctx, publisher.id)).id;
}

function about(placementId: string, word: string, extra: object = {}) {
  return { placement_id: placementId, context: { query: `what about ${word}?`, response: `Some thoughts on ${word}.` }, ...extra };
}

/** Serves a few times once the index has caught up; the set of line items that won. */
async function winners(body: object, times = 5, on = ctx): Promise<Set<string | null>> {
  const served = new Set<string | null>();
  for (let i = 0; i < times; i++) served.add(servedLineItem(on, await serve(on, publisher.token, body as never)));
  return served;
}

describe('certification and price models', () => {
  it('serves an uncertified placement only CPC and CPA demand, even when a tCPM line item bids more', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting: { keywords: { include: [word] } } });
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpc.lineItemId);
    const served = await winners(about(placement, word));
    expect(served).toEqual(new Set([cpc.lineItemId]));
    expect(served.has(cpm.lineItemId)).toBe(false);
  });

  it('serves CPA demand on an uncertified placement', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const cpa = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpa', bid_value: 2000 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpa.lineItemId);
    const claims = claimsOf(ctx, await serve(ctx, publisher.token, about(placement, word)));
    expect(claims).toMatchObject({ m: 'CPA', n: 2000 * 1e9 });
  });

  it('serves a certified placement tCPM demand when its expected value is highest', async () => {
    const word = uniqueWord();
    const placement = await newPlacement(true);
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting: { keywords: { include: [word] } } });
    await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpm.lineItemId);
    const claims = claimsOf(ctx, await serve(ctx, publisher.token, about(placement, word)));
    expect(claims).toMatchObject({ l: cpm.lineItemId, m: 'tCPM', n: 50_000_000_000 });
  });

  it('treats a revoked placement as uncertified from the next index refresh', async () => {
    const word = uniqueWord();
    const placement = await newPlacement(true);
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 50_000 }, targeting: { keywords: { include: [word] } } });
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpm.lineItemId);
    const revoked = await ctx.admin({ method: 'POST', url: `/v1/admin/placements/${placement}/revoke`, payload: { reason: 'test' } });
    expect(revoked.statusCode).toBe(200);
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpc.lineItemId);
    expect(await winners(about(placement, word))).toEqual(new Set([cpc.lineItemId]));
  });
});

describe('ranking', () => {
  it('prefers the higher expected value per impression: a CPC bid x 1% prior CTR against a tCPM bid / 1000', async () => {
    const word = uniqueWord();
    const placement = await newPlacement(true);
    // CPC 100 x 1% = 1.00 USD per impression beats tCPM 900 / 1000 = 0.90.
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 100 }, targeting: { keywords: { include: [word] } } });
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 900 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpc.lineItemId);
    await putLineItem(ctx, advertiser, cpm.lineItemId, 'bids', { bid_type: 'cpm', bid_value: 1100 });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpm.lineItemId);
  });

  it('learns CTR from delivery: a CPC line item with many impressions and no clicks falls behind', async () => {
    const word = uniqueWord();
    const placement = await newPlacement(true);
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 100 }, targeting: { keywords: { include: [word] } } });
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 900 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpc.lineItemId);
    // 10,000 valid impressions and no click: the estimated CTR drops from 1% to 2 / 10,200.
    await insertRows(ctx, 'daily_stats_v1', [
      { day: new Date().toISOString().slice(0, 10), campaign_id: cpc.campaignId, line_item_id: cpc.lineItemId, placement_id: placement, impressions: 10_000, clicks: 0, conversions: 0, spend_nanos: 0, revenue_nanos: 0 },
    ]);
    await eventuallyServed(ctx, publisher.token, about(placement, word), cpm.lineItemId);
  });

  it('multiplies by relevance: more matched include keywords beat a slightly higher bid', async () => {
    const [a, b] = [uniqueWord(), uniqueWord()];
    const placement = await newPlacement();
    const oneMatch = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 110 }, targeting: { keywords: { include: [a] } } });
    const twoMatches = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 100 }, targeting: { keywords: { include: [a, b] } } });
    const body = { placement_id: placement, context: { query: `${a} and ${b}`, response: '' } };
    await eventuallyServed(ctx, publisher.token, body, twoMatches.lineItemId);
    const onlyA = { placement_id: placement, context: { query: a, response: '' } };
    await eventuallyServed(ctx, publisher.token, onlyA, oneMatch.lineItemId);
  });

  it('keeps what a line item learned when it is paused and re-activated, without waiting for a stats refresh', async () => {
    const [word, own] = [uniqueWord(), uniqueWord()];
    const placement = await newPlacement();
    // CTR (100 + 2) / (100 + 200) = 34%: 100 x 0.34 beats an untested 150 x the 1% prior; at the prior, 100 x 1% loses.
    const proven = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 100 }, targeting: { keywords: { include: [word, own] } } });
    await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 150 }, targeting: { keywords: { include: [word] } } });
    await insertRows(ctx, 'daily_stats_v1', [
      { day: new Date().toISOString().slice(0, 10), campaign_id: proven.campaignId, line_item_id: proven.lineItemId, placement_id: placement, impressions: 100, clicks: 100, conversions: 0, spend_nanos: 0, revenue_nanos: 0 },
    ]);
    // An instance that reads the stats at its start and not again during the test.
    const other = await startAnotherInstance(ctx, { SELECTION_STATS_REFRESH_MS: '3600000' });
    try {
      await eventuallyServed(other, publisher.token, about(placement, word), proven.lineItemId);
      await changeCampaign(other, advertiser, proven.campaignId, { status: 'paused' });
      // Only the proven line item targets `own`: no ad for it once the pause reached the index, its ad once the activation did.
      await eventuallyServed(other, publisher.token, about(placement, own), proven.lineItemId, false);
      const activated = await asAdvertiser(other, advertiser.key)('POST', `/v1/advertiser/campaigns/${proven.campaignId}/activate`);
      expect(activated.statusCode).toBe(200);
      await eventuallyServed(other, publisher.token, about(placement, own), proven.lineItemId);
      expect(await winners(about(placement, word), 5, other)).toEqual(new Set([proven.lineItemId]));
    } finally {
      await other.close();
    }
  });
});

describe('campaign activation', () => {
  it('keeps a paused line item paused when the campaign is activated with keep_line_items_paused: no serve picks it, during the activation or after', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const api = asAdvertiser(ctx, advertiser.key);
    // The paused line item bids more: were it ever active, it would win every serve.
    const paused = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 100 }, targeting: { keywords: { include: [word] } } });
    const draft = (await api('POST', `/v1/advertiser/campaigns/${paused.campaignId}/line-items`, {
      title: 'Draft', budget: { daily: 1000, currency: 'USD' }, bids: { bid_type: 'cpc', bid_value: 1 }, targeting: { keywords: { include: [word] } }, creatives: [creative()],
    })).json().data as { id: string };
    expect((await api('PATCH', `/v1/advertiser/line-items/${paused.lineItemId}`, { status: 'paused' })).statusCode).toBe(200);
    await changeCampaign(ctx, advertiser, paused.campaignId, { status: 'paused' });
    await eventuallyServed(ctx, publisher.token, about(placement, word), paused.lineItemId, false);
    // Serves run back to back from before the activation until its draft line item is served (the index caught up).
    const served = new Set<string | null>();
    let draftServed = false;
    const deadline = Date.now() + 15_000;
    const serving = (async () => {
      while (!draftServed && Date.now() < deadline) {
        const winner = servedLineItem(ctx, await serve(ctx, publisher.token, about(placement, word)));
        served.add(winner);
        draftServed = winner === draft.id;
      }
    })();
    const activated = await api('POST', `/v1/advertiser/campaigns/${paused.campaignId}/activate`, { keep_line_items_paused: true });
    expect(activated.statusCode).toBe(200);
    await serving;
    expect(draftServed).toBe(true);
    expect(served.has(paused.lineItemId)).toBe(false);
    expect(await winners(about(placement, word))).toEqual(new Set([draft.id]));
    expect((await api('GET', `/v1/advertiser/line-items/${paused.lineItemId}`)).json().data.status).toBe('paused');
  });
});

describe('targeting', () => {
  it('serves a keyword-targeted line item only when an include keyword is in the query or the response', async () => {
    const word = uniqueWord();
    const other = uniqueWord();
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), lineItemId);
    const inResponse = { placement_id: placement, context: { query: 'hello', response: `Try ${word.toUpperCase()} today` } };
    expect(await winners(inResponse, 1)).toEqual(new Set([lineItemId]));
    expect((await winners(about(placement, other))).has(lineItemId)).toBe(false);
  });

  it('matches multi-word keywords as whole phrases, not across query and response', async () => {
    const [first, second] = [uniqueWord(), uniqueWord()];
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [`${first} ${second}`] } } });
    const phrase = { placement_id: placement, context: { query: `best ${first}-${second}?`, response: '' } };
    await eventuallyServed(ctx, publisher.token, phrase, lineItemId);
    const apart = { placement_id: placement, context: { query: `${second} ${first}`, response: '' } };
    const split = { placement_id: placement, context: { query: `about ${first}`, response: `${second} is good` } };
    expect((await winners(apart)).has(lineItemId)).toBe(false);
    expect((await winners(split)).has(lineItemId)).toBe(false);
  });

  it('never serves a line item whose exclude keyword is in the context, even when an include matches', async () => {
    const [word, banned] = [uniqueWord(), uniqueWord()];
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word], exclude: [banned] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), lineItemId);
    const withBanned = { placement_id: placement, context: { query: word, response: `also ${banned}` } };
    expect((await winners(withBanned)).has(lineItemId)).toBe(false);
  });

  it('applies exclude keywords to line items without include keywords', async () => {
    const banned = uniqueWord();
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 5000 },
      targeting: { keywords: { exclude: [banned] }, placements: { include: [placement] } },
    });
    const plain = { placement_id: placement, context: { query: 'anything', response: '' } };
    await eventuallyServed(ctx, publisher.token, plain, lineItemId);
    expect((await winners({ ...plain, context: { query: `anything ${banned}`, response: '' } })).has(lineItemId)).toBe(false);
  });

  it('serves a placement-targeted line item only on its placements, and never on excluded ones', async () => {
    const word = uniqueWord();
    const [listed, unlisted, excluded] = [await newPlacement(), await newPlacement(), await newPlacement()];
    const included = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: [word] }, placements: { include: [listed] } },
    });
    const excluding = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 50 },
      targeting: { keywords: { include: [word] }, placements: { exclude: [excluded] } },
    });
    await eventuallyServed(ctx, publisher.token, about(unlisted, word), excluding.lineItemId);
    expect(await winners(about(listed, word))).toEqual(new Set([included.lineItemId]));
    expect(await winners(about(unlisted, word))).toEqual(new Set([excluding.lineItemId]));
    expect((await winners(about(excluded, word))).has(excluding.lineItemId)).toBe(false);
    expect((await winners(about(excluded, word))).has(included.lineItemId)).toBe(false);
  });

  it('serves language-targeted line items only to serves in those languages, and to serves without a language', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] }, languages: ['de', 'fr'] } });
    await eventuallyServed(ctx, publisher.token, about(placement, word, { language: 'de' }), lineItemId);
    expect(await winners(about(placement, word, { language: 'fr-CH' }), 1)).toEqual(new Set([lineItemId]));
    expect(await winners(about(placement, word), 1)).toEqual(new Set([lineItemId]));
    expect((await winners(about(placement, word, { language: 'en' }))).has(lineItemId)).toBe(false);
  });

  it('matches a withdrawn ISO 639-1 code (iw, in) and its current one (he, id) either way', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    // Targeting sent with the current code, a serve with the old one (java.util.Locale before JDK 17)...
    const hebrew = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] }, languages: ['he'] } });
    await eventuallyServed(ctx, publisher.token, about(placement, word, { language: 'iw' }), hebrew.lineItemId);
    expect(await winners(about(placement, word, { language: 'iw-IL' }), 1)).toEqual(new Set([hebrew.lineItemId]));
    // ...and targeting sent with the old code, stored as the current one, a serve with the current one.
    const otherWord = uniqueWord();
    const indonesian = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [otherWord] }, languages: ['IN'] } });
    const stored = await asAdvertiser(ctx, advertiser.key)('GET', `/v1/advertiser/line-items/${indonesian.lineItemId}`);
    expect(stored.json().data.targeting.languages).toEqual(['id']);
    await eventuallyServed(ctx, publisher.token, about(placement, otherWord, { language: 'id' }), indonesian.lineItemId);
    expect(await winners(about(placement, otherWord, { language: 'in' }), 1)).toEqual(new Set([indonesian.lineItemId]));
  });
});

describe('what can be served', () => {
  it('stops serving a line item when its campaign is paused', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const { campaignId, lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), lineItemId);
    await changeCampaign(ctx, advertiser, campaignId, { status: 'paused' });
    await eventuallyServed(ctx, publisher.token, about(placement, word), lineItemId, false);
    expect((await winners(about(placement, word))).has(lineItemId)).toBe(false);
  });

  it('never serves a line item without a creative', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const bare = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 900 }, targeting: { keywords: { include: [word] } }, creatives: null });
    const withCard = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 10 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), withCard.lineItemId);
    expect((await winners(about(placement, word))).has(bare.lineItemId)).toBe(false);
  });

  it('picks up a management change (new bid) within a couple of seconds', async () => {
    const word = uniqueWord();
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 3 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, word), lineItemId);
    const changedAt = Date.now();
    await putLineItem(ctx, advertiser, lineItemId, 'bids', { bid_type: 'cpc', bid_value: 4.5 });
    await eventually(async () => {
      const claims = claimsOf(ctx, await serve(ctx, publisher.token, about(placement, word)));
      return claims.n === 4.5e9 ? true : undefined;
    }, 'new bid in the links');
    expect(Date.now() - changedAt).toBeLessThan(2000);
  });

  it('picks up new targeting', async () => {
    const [before, after] = [uniqueWord(), uniqueWord()];
    const placement = await newPlacement();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [before] } } });
    await eventuallyServed(ctx, publisher.token, about(placement, before), lineItemId);
    await putLineItem(ctx, advertiser, lineItemId, 'targeting', { keywords: { include: [after] } });
    await eventuallyServed(ctx, publisher.token, about(placement, after), lineItemId);
    expect((await winners(about(placement, before))).has(lineItemId)).toBe(false);
  });
});

describe('explain: matched line items held back', () => {
  it('says which matched line items were held back and why, with or without an ad', async () => {
    const word = uniqueWord();
    const placement = await newPlacement(true);
    const capped = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 10 },
      targeting: { keywords: { include: [word] } },
      lineItem: { frequency_cap: { impressions: 1, per: 'day' } },
    });
    const budgeted = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 5 },
      budget: { daily: 2, currency: 'USD', pacing: 'asap' },
      targeting: { keywords: { include: [word] } },
    });
    const explained = async (user?: string) => (await serve(ctx, publisher.token, about(placement, word, { explain: true, ...(user ? { user: { id: user } } : {}) }))).json();
    await eventuallyServed(ctx, publisher.token, about(placement, word), budgeted.lineItemId);

    // Without user.id the capped line item cannot be served: the other one is, and the answer says so.
    expect((await explained()).match).toEqual({ by: 'keywords', keywords: [word], held_back: { no_user_id: 1 } });
    // The budgeted one's day spent (2 USD, by any instance): no ad, and not "nothing matched".
    await insertEvents(ctx, [sampleEvent({ campaign_id: budgeted.campaignId, line_item_id: budgeted.lineItemId, placement_id: placement, publisher_id: publisher.id, type: 'click', cost_nanos: 2e9 })]);
    await eventuallyServed(ctx, publisher.token, about(placement, word), budgeted.lineItemId, false);
    expect(await explained()).toEqual({ ad: null, match: { by: 'none', held_back: { no_user_id: 1, budget: 1 } } });
    // A user at the cap (one serve still waiting for its impression counts).
    expect(servedLineItem(ctx, await serve(ctx, publisher.token, about(placement, word, { user: { id: 'reader-1' } })))).toBe(capped.lineItemId);
    expect(await explained('reader-1')).toEqual({ ad: null, match: { by: 'none', held_back: { frequency_cap: 1, budget: 1 } } });
    // The usual serve carries no explanation.
    expect((await serve(ctx, publisher.token, about(placement, word))).json()).toEqual({ ad: null });
  });

  it('counts a tCPM line item an uncertified placement may not get as held back for certification, not as no match', async () => {
    const word = uniqueWord();
    const [uncertified, certified] = [await newPlacement(), await newPlacement(true)];
    const cpm = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 5 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(certified, word), cpm.lineItemId);
    expect((await serve(ctx, publisher.token, about(uncertified, word, { explain: true }))).json()).toEqual({ ad: null, match: { by: 'none', held_back: { certification: 1 } } });
    // A CPC line item on the same keyword is served there; the tCPM one is still counted.
    const cpc = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(uncertified, word), cpc.lineItemId);
    expect((await serve(ctx, publisher.token, about(uncertified, word, { explain: true }))).json().match).toEqual({ by: 'keywords', keywords: [word], held_back: { certification: 1 } });
    // A certified placement gets it: nothing held back.
    expect((await serve(ctx, publisher.token, about(certified, word, { explain: true }))).json().match).toEqual({ by: 'keywords', keywords: [word] });
  });
});
