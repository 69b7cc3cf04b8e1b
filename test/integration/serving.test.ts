import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnotherInstance, type TestContext } from '../helpers/testApp.js';
import { createCertifiedPlacement, createPlacement, createPublisher, startAppWithAdvertiserAndPublisher } from '../helpers/factories.js';
import {
  changeCampaign,
  claimsOf,
  creative,
  eventuallyServed,
  placementInIndex,
  putLineItem,
  serve,
  servableLineItem,
  servedLineItem,
  uniqueWord,
  type Advertiser,
} from '../helpers/servingFixtures.js';
import { eventually } from '../helpers/eventually.js';
import { verifyTrackingToken } from '../../src/tracking/trackingToken.js';
import { format1OnlyClaims } from '../helpers/format1Verifier.js';
import { detailPaths } from '../helpers/errorDetails.js';

let ctx: TestContext;
let advertiser: Advertiser;
let publisher: { id: string; token: string; token_id: string };
let placementId: string;

beforeAll(async () => {
  ({ ctx, advertiser, publisher } = await startAppWithAdvertiserAndPublisher());
  placementId = await placementInIndex(ctx, publisher);
});
afterAll(async () => {
  await ctx.close();
});

/** A serve whose context holds `word`, so that only line items targeting that word compete on relevance. */
function about(word: string, extra: object = {}) {
  return { placement_id: placementId, context: { query: `tell me about ${word}`, response: `Here is what I know about ${word}.` }, ...extra };
}

describe('POST /v1/serve authentication', () => {
  it('answers 401 auth_missing without a bearer token', async () => {
    const response = await serve(ctx, undefined, { placement_id: placementId });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'auth_missing', message: expect.any(String) } });
  });

  it('answers 401 auth_invalid for a token that was never issued', async () => {
    const response = await serve(ctx, 'pt_not-a-real-token', { placement_id: placementId });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('auth_invalid');
  });

  it('answers 401 auth_invalid for a revoked token once the index has refreshed', async () => {
    const own = await createPublisher(ctx);
    const placement = await createPlacement(ctx, own.id);
    await eventually(async () => ((await serve(ctx, own.token, { placement_id: placement.id })).statusCode === 200 ? true : undefined), 'token live');
    const revoked = await ctx.admin({ method: 'DELETE', url: `/v1/admin/publisher-tokens/${own.token_id}` });
    expect(revoked.statusCode).toBe(204);
    const response = await eventually(async () => {
      const attempt = await serve(ctx, own.token, { placement_id: placement.id });
      return attempt.statusCode === 401 ? attempt : undefined;
    }, 'revoked token to be refused');
    expect(response.json().error.code).toBe('auth_invalid');
  });

  it('answers 401 before looking at the body', async () => {
    const response = await serve(ctx, 'wrong', '{"placement_id": ');
    expect(response.statusCode).toBe(401);
  });
});

describe('POST /v1/serve placements', () => {
  it("answers 404 not_found for another publisher's placement", async () => {
    const other = await createPublisher(ctx);
    const theirs = await createPlacement(ctx, other.id);
    await eventually(async () => ((await serve(ctx, other.token, { placement_id: theirs.id })).statusCode === 200 ? true : undefined), 'their placement live');
    const response = await serve(ctx, publisher.token, { placement_id: theirs.id });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('not_found');
  });

  it('answers 404 not_found for a placement that does not exist', async () => {
    const response = await serve(ctx, publisher.token, { placement_id: 'no-such-placement' });
    expect(response.statusCode).toBe(404);
  });
});

describe('POST /v1/serve bad input', () => {
  it('answers 400 bad_request on malformed JSON', async () => {
    const response = await serve(ctx, publisher.token, '{"placement_id": ');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('bad_request');
  });

  it('answers 422 listing every offending field', async () => {
    const response = await serve(ctx, publisher.token, { placement_id: '', context: { query: 5 } } as never);
    expect(response.statusCode).toBe(422);
    const paths = detailPaths(response);
    expect(paths).toEqual(expect.arrayContaining(['placement_id', 'context.query', 'context.response']));
  });

  it('answers 422 for a placement id with control characters', async () => {
    const response = await serve(ctx, publisher.token, { placement_id: 'pl\u0000x' });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details[0].path).toBe('placement_id');
  });

  it('rejects unknown fields with 422 at their own path', async () => {
    const response = await serve(ctx, publisher.token, { placement_id: placementId, lang: 'en' });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details).toEqual([{ path: 'lang', message: 'unknown field' }]);
  });

  it('answers 422 for a context over its length limit, an invalid IP and an invalid language', async () => {
    const response = await serve(ctx, publisher.token, {
      placement_id: placementId,
      context: { query: 'q'.repeat(4001), response: '' },
      user: { ip: '999.1.1.1' },
      language: 'english',
    });
    expect(response.statusCode).toBe(422);
    const paths = detailPaths(response);
    expect(paths).toEqual(expect.arrayContaining(['context.query', 'user.ip', 'language']));
  });

  it('answers 413 payload_too_large for a body over 128 KiB', async () => {
    const response = await serve(ctx, publisher.token, {
      placement_id: placementId,
      context: { query: '', response: 'x'.repeat(140 * 1024) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('payload_too_large');
  });

  it('accepts the optional user and language fields', async () => {
    const response = await serve(ctx, publisher.token, {
      placement_id: placementId,
      user: { ip: '2001:db8::1', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36' },
      language: 'en-US',
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('POST /v1/serve ad payload', () => {
  it('returns a contextual card with a Sponsored label and signed links under TRACKING_BASE_URL', async () => {
    const word = uniqueWord();
    const card = { ...creative('Ride further'), image_url: 'https://cdn.brand.example/bike.png' };
    const { campaignId, lineItemId } = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 250 },
      targeting: { keywords: { include: [word] } },
      creatives: [card],
      brandName: 'Velo',
    });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const response = await serve(ctx, publisher.token, about(word));
    const { ad } = response.json();
    expect(ad).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      format: 'contextual_card',
      render: {
        title: 'Ride further',
        body: card.body,
        cta: card.cta,
        brand_name: 'Velo',
        image_url: card.image_url,
        display_url: 'shop.example.com',
        label: 'Sponsored',
      },
      tracking: {
        impression_url: expect.stringMatching(/^http:\/\/track\.test\/v1\/t\/i\/[\w-]+$/),
        click_url: expect.stringMatching(/^http:\/\/track\.test\/v1\/t\/c\/[\w-]+$/),
      },
    });
    const claims = claimsOf(ctx, response);
    expect(claims).toMatchObject({
      s: ad.id,
      c: campaignId,
      l: lineItemId,
      p: placementId,
      u: publisher.id,
      m: 'CPC',
      n: 250_000_000_000,
    });
    const nowSeconds = Date.now() / 1000;
    expect(claims.e).toBeGreaterThan(nowSeconds + ctx.config.TRACKING_LINK_TTL_SECONDS - 60);
    expect(claims.t).toBeGreaterThan(Date.now() - 60_000);
  });

  it('gives every serve its own id', async () => {
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const first = claimsOf(ctx, await serve(ctx, publisher.token, about(word)));
    const second = claimsOf(ctx, await serve(ctx, publisher.token, about(word)));
    expect(first.s).not.toBe(second.s);
  });

  it('makes a link invalid when any byte of its token is altered', async () => {
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const url: string = (await serve(ctx, publisher.token, about(word))).json().ad.tracking.impression_url;
    const token = url.slice(url.lastIndexOf('/') + 1);
    expect(verifyTrackingToken(token, ctx.secrets.trackingSecret).valid).toBe(true);
    for (let i = 0; i < token.length; i++) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(verifyTrackingToken(altered, ctx.secrets.trackingSecret).valid, `byte ${i}`).toBe(false);
    }
    expect(verifyTrackingToken(token, 'another-secret-0123456789abcdef0123').valid).toBe(false);
  });

  it('prices tCPM links at bid/1000 per impression in nano-USD, converted from the budget currency', async () => {
    const certified = await createCertifiedPlacement(ctx, publisher.id);
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 20_000 },
      budget: { daily: 100_000, currency: 'EUR' },
      targeting: { keywords: { include: [word] } },
    });
    const body = { ...about(word), placement_id: certified };
    await eventuallyServed(ctx, publisher.token, body, lineItemId);
    const claims = claimsOf(ctx, await serve(ctx, publisher.token, body));
    expect(claims.m).toBe('tCPM');
    // 20,000 EUR per thousand at the reference rate 1.035 USD/EUR: 20.7 USD per impression.
    expect(claims.n).toBe(20_700_000_000);
  });

  it('never serves a line item whose price per click does not fit the links (a CPC bid of 10,000,000 USD, stored before the bid_value cap), and answers 200 with another ad', async () => {
    const word = uniqueWord();
    const huge = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpc', bid_value: 1 },
      budget: { daily: 500_000_000, currency: 'USD' },
      targeting: { keywords: { include: [word] } },
    });
    // Above 2^53 nano-USD per click: the token cannot carry that price exactly. The API refuses such
    // a bid now (at most 1,000,000); a row stored before the cap is written here as it would be.
    await ctx.stores.db.query('UPDATE line_items SET bid_value = 10000000 WHERE id = $1', [huge.lineItemId]);
    // Created after the huge bid: once the index serves it, the index has seen the huge bid too.
    const modest = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpc', bid_value: 1 }, targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(word), modest.lineItemId);
    for (let i = 0; i < 5; i++) {
      const response = await serve(ctx, publisher.token, about(word));
      expect(response.statusCode).toBe(200);
      expect(claimsOf(ctx, response).l).not.toBe(huge.lineItemId);
    }
  });

  it('never serves a line item whose price per impression rounds to 0 nano-USD (tCPM 0.0001 KRW, stored before such bids were refused): it would serve for nothing, past every budget', async () => {
    const certified = await createCertifiedPlacement(ctx, publisher.id);
    const word = uniqueWord();
    const free = await servableLineItem(ctx, advertiser, {
      bids: { bid_type: 'cpm', bid_value: 1 },
      budget: { daily: 1000, currency: 'KRW' },
      targeting: { keywords: { include: [word] } },
    });
    // 0.0001 KRW a thousand is 68 nano-USD: 0 an impression. The API refuses it now (422); a row stored before is written here.
    await ctx.stores.db.query('UPDATE line_items SET bid_value = 0.0001 WHERE id = $1', [free.lineItemId]);
    // Created after the update: once the index serves it, the index has seen the update too.
    const later = uniqueWord();
    const paid = await servableLineItem(ctx, advertiser, { bids: { bid_type: 'cpm', bid_value: 1 }, targeting: { keywords: { include: [later] } } });
    await eventuallyServed(ctx, publisher.token, { ...about(later), placement_id: certified }, paid.lineItemId);
    for (let i = 0; i < 5; i++) {
      const response = await serve(ctx, publisher.token, { ...about(word), placement_id: certified });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ad: null });
    }
  });

  it('answers {"ad": null} for a declared bot user agent', async () => {
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const response = await serve(ctx, publisher.token, about(word, { user: { user_agent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' } }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ad: null });
  });

  it('rotates the creatives of the winning line item', async () => {
    const word = uniqueWord();
    const { lineItemId } = await servableLineItem(ctx, advertiser, {
      targeting: { keywords: { include: [word] } },
      creatives: [creative('First card'), creative('Second card')],
    });
    await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
    const titles = [];
    for (let i = 0; i < 4; i++) titles.push((await serve(ctx, publisher.token, about(word))).json().ad.render.title);
    expect(new Set(titles)).toEqual(new Set(['First card', 'Second card']));
    expect(titles[0]).not.toBe(titles[1]);
    expect(titles[1]).not.toBe(titles[2]);
  });
});

describe('TRACKING_TOKEN_FORMAT=1 (a rolling upgrade from, or a rollback to, a version before format 2)', () => {
  it('serves links a version that reads only format 1 verifies, and that this version verifies too', async () => {
    // Another instance on the same stores, as on servers during a rolling upgrade.
    const older = await startAnotherInstance(ctx, { TRACKING_TOKEN_FORMAT: '1' });
    try {
      const word = uniqueWord();
      const { lineItemId } = await servableLineItem(ctx, advertiser, { targeting: { keywords: { include: [word] } } });
      await eventuallyServed(older, publisher.token, about(word), lineItemId);
      const { impression_url, click_url } = (await serve(older, publisher.token, about(word))).json().ad.tracking as Record<string, string>;
      const token = impression_url!.slice(impression_url!.lastIndexOf('/') + 1);
      expect(click_url!.endsWith(`/${token}`)).toBe(true);
      expect(format1OnlyClaims(token, ctx.secrets.trackingSecret)).toMatchObject({ l: lineItemId, u: publisher.id, m: 'CPC', n: 100_000_000_000 });
      expect(verifyTrackingToken(token, ctx.secrets.trackingSecret)).toMatchObject({ valid: true, claims: { l: lineItemId } });
      // The default instance signs format 2, which the older code cannot read.
      await eventuallyServed(ctx, publisher.token, about(word), lineItemId);
      const url: string = (await serve(ctx, publisher.token, about(word))).json().ad.tracking.impression_url;
      expect(format1OnlyClaims(url.slice(url.lastIndexOf('/') + 1), ctx.secrets.trackingSecret)).toBeUndefined();
    } finally {
      await older.close();
    }
  });
});
