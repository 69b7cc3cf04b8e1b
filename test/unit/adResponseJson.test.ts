import { describe, expect, it } from 'vitest';
import { adResponseJson, type AdPayload } from '../../src/serving/adPayload.js';
import type { ContextualCardRender } from '../../src/serving/adIndex.js';

function adWith(render: ContextualCardRender, id = 'c2VydmUtaWQtMTIzNDU2'): AdPayload {
  return {
    id,
    format: 'contextual_card',
    render,
    tracking: { impression_url: `https://t.example.com/v1/t/i/${id}.sig`, click_url: `https://t.example.com/v1/t/c/${id}.sig` },
  };
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
  it('writes exactly what JSON.stringify({ ad }) writes, with and without an image', () => {
    const { image_url: _image, ...withoutImage } = plain;
    for (const render of [plain, withoutImage]) {
      const ad = adWith(render);
      expect(adResponseJson(ad)).toBe(JSON.stringify({ ad }));
    }
  });

  it('escapes what JSON needs escaped in every field', () => {
    const awkward: ContextualCardRender = {
      ...plain,
      title: 'quote " backslash \\ newline \n tab \t',
      body: 'ünïcödé ✓ 😀 \u2028 \u0000 </script>',
      brand_name: '"},"ad":null,"x":{"',
    };
    const ad = { ...adWith(awkward, 'id"with\\odd'), tracking: { impression_url: 'https://t.example.com/a"b', click_url: 'https://t.example.com/c\\d' } };
    const written = adResponseJson(ad);
    expect(written).toBe(JSON.stringify({ ad }));
    expect(JSON.parse(written)).toEqual({ ad });
  });

  it('answers each creative with its own render once the first is remembered', () => {
    const first = adWith(plain);
    const second = adWith({ ...plain, title: 'Another creative' }, 'b3RoZXItc2VydmU');
    adResponseJson(first);
    expect(adResponseJson(second)).toBe(JSON.stringify({ ad: second }));
    expect(adResponseJson(first)).toBe(JSON.stringify({ ad: first }));
  });
});
