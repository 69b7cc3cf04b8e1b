import { describe, expect, it } from 'vitest';
import { ImpressionVelocity } from '../../src/tracking/impressionVelocity.js';
import type { Visitor } from '../../src/tracking/visitor.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const DEFAULTS = { per10s: 30, per10min: 600, blockPer10s: 2000, blockPer10min: 24_000 };

function visitor(ip: string, userAgent = CHROME): Visitor {
  return { ip: { ip, ipClass: 'public', network: '', ivt: '' }, userAgent, ivt: '' };
}

/** Which of the impressions at these times (ms) the rule refuses. */
function refused(velocity: ImpressionVelocity, who: Visitor, times: number[], publisher = 'chat-publisher'): number[] {
  return times.filter((time) => velocity.tooFast(who, publisher, time));
}

const T0 = 1_800_000_000_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('impression velocity (per publisher and network: the address, IPv6 by its /56; and per publisher and block)', () => {
  it("allows 30 impressions of a publisher's placements in 10 s from one address and refuses the rest of a flood", () => {
    // session 31's test: 100 serves and pixels from one home address in 3.8 s.
    const flood = Array.from({ length: 100 }, (_, n) => T0 + n * 38);
    expect(refused(new ImpressionVelocity(DEFAULTS), visitor('86.141.1.1'), flood)).toEqual(flood.slice(30));
  });

  it('allows 600 in 10 minutes, spread out past the 10-second limit, and refuses beyond', () => {
    const velocity = new ImpressionVelocity(DEFAULTS);
    const times = Array.from({ length: 700 }, (_, n) => T0 + n * 500);
    const out = refused(velocity, visitor('86.141.1.1'), times);
    expect(out.length).toBeGreaterThanOrEqual(95);
    expect(out[0]).toBeGreaterThanOrEqual(T0 + 599 * 500);
  });

  it('never refuses a shared address whose readers make one a second between them, for hours, nor a person', () => {
    const velocity = new ImpressionVelocity(DEFAULTS);
    const steady = Array.from({ length: 3 * 3600 }, (_, n) => T0 + n * 1050 + (n % 7) * 100);
    expect(refused(velocity, visitor('86.141.1.1'), steady)).toEqual([]);
    // Thirty readers behind one CGNAT address whose answers happen to come in the same few seconds.
    const bunched = Array.from({ length: 30 }, (_, n) => T0 + 4 * 3600 * SECOND + n * 150);
    expect(refused(velocity, visitor('86.141.2.1'), bunched)).toEqual([]);
  });

  it('keeps publishers, addresses and IPv6 /56s apart, and counts the user agents of one address together', () => {
    const velocity = new ImpressionVelocity(DEFAULTS);
    const times = Array.from({ length: 30 }, (_, n) => T0 + n * 10);
    expect(refused(velocity, visitor('86.141.1.1'), times)).toEqual([]);
    expect(velocity.tooFast(visitor('86.141.1.1', 'another browser'), 'chat-publisher', T0 + 400)).toBe(true);
    expect(velocity.tooFast(visitor('86.141.1.1'), 'another-publisher', T0 + 400)).toBe(false);
    expect(velocity.tooFast(visitor('86.141.1.2'), 'chat-publisher', T0 + 400)).toBe(false);

    const sameHome = Array.from({ length: 31 }, (_, n) => `2a02:c7c:1234:56${String(n % 10).padStart(2, '0')}::1`);
    expect(sameHome.filter((ip, n) => velocity.tooFast(visitor(ip), 'chat-publisher', T0 + n * 10))).toEqual([sameHome[30]]);
    expect(velocity.tooFast(visitor('2a02:c7c:1234:5700::1'), 'chat-publisher', T0 + 400)).toBe(false);
  });

  it('lets a network that slowed down be billed again, and has no limit where it is set to 0', () => {
    const velocity = new ImpressionVelocity(DEFAULTS);
    const who = visitor('86.141.1.1');
    refused(velocity, who, Array.from({ length: 50 }, (_, n) => T0 + n * 10));
    expect(velocity.tooFast(who, 'chat-publisher', T0 + 5 * SECOND)).toBe(true);
    expect(velocity.tooFast(who, 'chat-publisher', T0 + 21 * SECOND)).toBe(false);

    const unlimited = new ImpressionVelocity({ per10s: 0, per10min: 0, blockPer10s: 0, blockPer10min: 0 });
    expect(refused(unlimited, who, Array.from({ length: 1000 }, (_, n) => T0 + n))).toEqual([]);
    const sustainedOnly = new ImpressionVelocity({ per10s: 0, per10min: 600, blockPer10s: 0, blockPer10min: 0 });
    expect(refused(sustainedOnly, who, Array.from({ length: 601 }, (_, n) => T0 + n))).toHaveLength(1);
  });

  it("caps one publisher's impressions from one IPv4 /24 or IPv6 /48, address after address, and no other publisher's (try41 F6)", () => {
    // The publisher's own pixels from 256 addresses of one /24, each under its own limit (25 in 10 s).
    const velocity = new ImpressionVelocity(DEFAULTS);
    const pixels = Array.from({ length: 256 * 25 }, (_, n) => ({ ip: `81.2.180.${n % 256}`, time: T0 + n }));
    const out = pixels.filter(({ ip, time }) => velocity.tooFast(visitor(ip), 'fraud-publisher', time));
    expect(out).toEqual(pixels.slice(2000));
    // Another publisher's readers in the same block, at the same time, are billed.
    expect(Array.from({ length: 100 }, (_, n) => velocity.tooFast(visitor(`81.2.180.${n}`), 'chat-publisher', T0 + 7000 + n)).filter(Boolean)).toEqual([]);
    // Another /24 of the same publisher is not the block.
    expect(velocity.tooFast(visitor('81.2.181.1'), 'fraud-publisher', T0 + 7000)).toBe(false);

    // Kept up under the 10 s cap (1,000 in each 10 s from 200 addresses): 24,000 in 10 minutes, then refused.
    const steady = new ImpressionVelocity(DEFAULTS);
    const paced = Array.from({ length: 30_000 }, (_, n) => ({ ip: `2a00:23c5:9999:${(n % 200).toString(16)}00::1`, time: T0 + n * 10 }));
    const refusedPaced = paced.filter(({ ip, time }) => steady.tooFast(visitor(ip), 'fraud-publisher', time));
    expect(refusedPaced.length).toBeGreaterThanOrEqual(5000);
    expect(refusedPaced[0]!.time).toBeGreaterThanOrEqual(T0 + 23_900 * 10);
  });

  it("keeps a repeat network's block counted with the block's other networks across the blocks' generation swaps", () => {
    // The network's entry holds its block's counts (rev41 R9) only while the blocks' generation it
    // got them in is current: a pixel after a swap carries the block's key over, as a lookup did.
    const velocity = new ImpressionVelocity({ ...DEFAULTS, blockPer10s: 10 });
    const fill = (from: number) => {
      // Other publishers' blocks: 50,000 fill the blocks' generation, the next lookup swaps it.
      for (let n = 0; n <= 50_000; n++) velocity.tooFast(visitor('86.141.1.1'), `other-${from + n}`, T0 + 1000);
    };
    expect(refused(velocity, visitor('81.2.180.1'), [T0, T0 + 1, T0 + 2, T0 + 3], 'fraud-publisher')).toEqual([]);
    fill(0);
    // The block's key is carried into the new generation by this pixel of the same network...
    expect(velocity.tooFast(visitor('81.2.180.1'), 'fraud-publisher', T0 + 2000)).toBe(false);
    fill(100_000);
    // ...so after a second swap the block still has its 5, and another address of it gets 5 more.
    const times = Array.from({ length: 8 }, (_, n) => T0 + 3000 + n);
    expect(refused(velocity, visitor('81.2.180.2'), times, 'fraud-publisher')).toEqual(times.slice(5));
  });

  it('never refuses a carrier block whose thousands of readers make 30 impressions a second of one publisher between them, for an hour', () => {
    const velocity = new ImpressionVelocity(DEFAULTS);
    const crowd = Array.from({ length: 3600 * 30 }, (_, n) => ({ ip: `100.64.7.${(n * 7) % 256}`, time: T0 + Math.floor(n * 33.3) }));
    expect(crowd.filter(({ ip, time }) => velocity.tooFast(visitor(ip), 'chat-publisher', time))).toEqual([]);
  });
});
