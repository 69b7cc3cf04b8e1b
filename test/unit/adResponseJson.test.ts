import { describe, expect, it } from 'vitest';
import { adPayload, adResponseJson, signAd, type SignedAd } from '../../src/serving/adPayload.js';
import { newServeId } from '../../src/serving/serveId.js';
import type { ContextualCardRender, LineItemEntry, ServableCreative } from '../../src/serving/adIndex.js';
import { signTrackingToken, verifyTrackingToken } from '../../src/tracking/trackingToken.js';

const BASE_URL = 'https://t.example.com';

/** An ad as serving signs one: a real serve id and a real token. */
function signedWith(render: ContextualCardRender, userKey?: string): SignedAd {
  const nowMs = Date.now();
  const id = newServeId(nowMs);
  const token = signTrackingToken(
    {
      s: id,
      c: '7b0c1d9e-1111-4222-8333-444455556666',
      l: '8b0c1d9e-1111-4222-8333-444455556666',
      r: '9b0c1d9e-1111-4222-8333-444455556666',
      p: 'placement-1',
      u: 'ab0c1d9e-1111-4222-8333-444455556666',
      m: 'CPC',
      n: 250_000_000,
      e: Math.floor(nowMs / 1000) + 3600,
      t: nowMs,
      ...(userKey === undefined ? {} : { k: userKey }),
    },
    'a tracking secret of at least thirty-two characters',
  );
  return { id, render, token };
}

const plain: ContextualCardRender = {
  title: 'Trail shoes',
  body: 'Grip on wet rock.',
  cta: 'Shop',
  brand_name: 'Northfold',
  image_url: 'https://cdn.example.com/shoe.jpg',
  display_url: 'northfold.example',
  label: 'Sponsored',
};

describe('adResponseJson', () => {
  it('writes exactly what JSON.stringify({ ad }) writes, with and without an image or a user key', () => {
    const { image_url: _image, ...withoutImage } = plain;
    for (const ad of [signedWith(plain), signedWith(withoutImage), signedWith(plain, 'dXNlci1rZXktMTIzNDU2Nzg')]) {
      expect(adResponseJson(ad, BASE_URL)).toBe(JSON.stringify({ ad: adPayload(ad, BASE_URL) }));
      expect(JSON.parse(adResponseJson(ad, BASE_URL)).ad.tracking).toEqual({
        impression_url: `${BASE_URL}/v1/t/i/${ad.token}`,
        click_url: `${BASE_URL}/v1/t/c/${ad.token}`,
      });
    }
  });

  it('escapes what JSON needs escaped in the render and the tracking base URL', () => {
    const awkward: ContextualCardRender = {
      ...plain,
      title: 'quote " backslash \\ newline \n tab \t',
      body: 'ünïcödé ✓ 😀 \u2028 \u0000 </script>',
      brand_name: '"},"ad":null,"x":{"',
    };
    const ad = signedWith(awkward);
    for (const baseUrl of ['https://t.example.com/a"b', 'https://t.example.com/c\\d', 'https://t.exämple.com']) {
      const written = adResponseJson(ad, baseUrl);
      expect(written).toBe(JSON.stringify({ ad: adPayload(ad, baseUrl) }));
      expect(JSON.parse(written)).toEqual({ ad: adPayload(ad, baseUrl) });
    }
  });

  it('answers each creative with its own render once the first is remembered', () => {
    const first = signedWith(plain);
    const second = signedWith({ ...plain, title: 'Another creative' });
    adResponseJson(first, BASE_URL);
    expect(adResponseJson(second, BASE_URL)).toBe(JSON.stringify({ ad: adPayload(second, BASE_URL) }));
    expect(adResponseJson(first, BASE_URL)).toBe(JSON.stringify({ ad: adPayload(first, BASE_URL) }));
  });
});

describe('signAd', () => {
  const signing = { trackingSecret: 'a tracking secret of at least thirty-two characters', trackingBaseUrl: BASE_URL, linkTtlSeconds: 3600, tokenFormat: 2 as const };
  const lineItem = (id: string, campaignId: string) => ({ id, campaignId, model: 'CPC', priceNanos: 250_000_000 }) as LineItemEntry;
  const creative: ServableCreative = { id: '9b0c1d9e-1111-4222-8333-444455556666', render: plain, destinationUrl: 'https://northfold.example/shoes' };
  const claimsOf = (ad: SignedAd) => {
    const verdict = verifyTrackingToken(ad.token, signing.trackingSecret);
    return verdict.valid ? verdict.claims : undefined;
  };

  it("signs each serve's own campaign, line item and creative, also when an entry made anew keeps the creative", () => {
    const first = lineItem('8b0c1d9e-1111-4222-8333-444455556666', '7b0c1d9e-1111-4222-8333-444455556666');
    const other = lineItem('8b0c1d9e-2222-4222-8333-444455556666', '7b0c1d9e-2222-4222-8333-444455556666');
    for (const entry of [first, first, other, first]) {
      const ad = signAd({ lineItem: entry, creative }, 'placement-1', 'ab0c1d9e-1111-4222-8333-444455556666', signing);
      expect(claimsOf(ad)).toMatchObject({ s: ad.id, c: entry.campaignId, l: entry.id, r: creative.id, p: 'placement-1', m: 'CPC', n: 250_000_000 });
    }
  });
});
