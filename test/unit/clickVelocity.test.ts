import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CLICK_VELOCITY_LIMITS, ClickVelocity, NETWORK_CLICK_VELOCITY_LIMITS } from '../../src/tracking/clickVelocity.js';
import { PlacementBlocks, type PlacementClickLimits } from '../../src/tracking/placementBlocks.js';
import type { Visitor } from '../../src/tracking/visitor.js';
// The placement blocks' impression sample drawn from a seeded generator: the same counts every run.
import { seededRandom } from '../../bench/seededRandom.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0';

function visitor(ip: string, userAgent = CHROME): Visitor {
  return { ip: { ip, ipClass: 'public', network: '', ivt: '' }, userAgent, ivt: '' };
}

/** Judges a click and counts it (as the tracker does once it is stored); true when it is refused. */
function tooFast(velocity: ClickVelocity, who: Visitor, time: number, publisher = PUBLISHER): boolean {
  const pace = velocity.judge(who, publisher, time);
  pace.count();
  return pace.tooFast !== false;
}

/** Which of the clicks at these times (ms) the rule refuses. */
function refused(velocity: ClickVelocity, who: Visitor, times: number[]): number[] {
  return times.filter((time) => tooFast(velocity, who, time));
}

/** The publisher whose placements are clicked: the blocks count a publisher's placements together (try41 F1). */
const PUBLISHER = 'pubA';

/** The defaults: PLACEMENT_CLICK_VELOCITY_10S, _10MIN and PLACEMENT_CLICK_THROUGH_MAX unset. */
const defaults = loadConfig({});
const DEFAULT_LIMITS: PlacementClickLimits = {
  per10s: defaults.PLACEMENT_CLICK_VELOCITY_10S,
  per10min: defaults.PLACEMENT_CLICK_VELOCITY_10MIN,
  maxClickThrough: defaults.PLACEMENT_CLICK_THROUGH_MAX,
};

/** Click velocity over these placement blocks (the tracker shares them with the pixel, which counts impressions). */
function clickVelocity(blocks = new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5))): ClickVelocity {
  return new ClickVelocity(blocks);
}
const T0 = 1_800_000_000_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('click velocity (per visitor: address, IPv6 by its /64, and user agent)', () => {
  it('allows 3 clicks in 10 s and refuses the 4th', () => {
    expect(CLICK_VELOCITY_LIMITS[0]).toEqual({ events: 3, windowMs: 10 * SECOND });
    const times = [0, 1, 2, 3, 4].map((n) => T0 + n * 2 * SECOND);
    expect(refused(clickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(3));
  });

  it('allows 20 clicks in 10 minutes and refuses the 21st, even spread out past the 10-second limit', () => {
    expect(CLICK_VELOCITY_LIMITS[1]).toEqual({ events: 20, windowMs: 10 * MINUTE });
    const times = Array.from({ length: 22 }, (_, n) => T0 + n * 5 * SECOND);
    expect(refused(clickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(20));
  });

  it('keeps refusing a visitor that keeps clicking fast, and lets it click again once it slowed down', () => {
    const velocity = clickVelocity();
    const who = visitor('73.162.10.20');
    const flood = Array.from({ length: 40 }, (_, n) => T0 + n * 35);
    expect(refused(velocity, who, flood)).toHaveLength(37);
    expect(tooFast(velocity, who, T0 + 5 * SECOND)).toBe(true);
    expect(tooFast(velocity, who, T0 + 10 * MINUTE + 6 * SECOND)).toBe(false);
  });

  it('never refuses an eager reader: a click every 31 s for three hours, or 3 quick ones now and then', () => {
    const velocity = clickVelocity();
    const steady = Array.from({ length: 3 * 60 * 2 }, (_, n) => T0 + n * 31 * SECOND);
    expect(refused(velocity, visitor('73.162.10.20'), steady)).toEqual([]);
    const bursts = Array.from({ length: 6 }, (_, n) => [0, 2, 4].map((s) => T0 + n * 2 * MINUTE + s * SECOND)).flat();
    // A velocity of its own: the steady reader's clicks run three hours ahead of these, in the same /24.
    expect(refused(clickVelocity(), visitor('73.162.10.21'), bursts)).toEqual([]);
  });

  it('counts another address or another user agent as another visitor, and one IPv6 /64 as one', () => {
    const velocity = clickVelocity();
    const times = [0, 1, 2].map((n) => T0 + n * SECOND);
    for (const who of [visitor('73.162.10.20'), visitor('73.162.10.21'), visitor('73.162.10.20', FIREFOX), visitor('2003:e1:bf00::1')]) {
      expect(refused(velocity, who, times)).toEqual([]);
    }
    // A fourth click of the /64 of 2003:e1:bf00::1, from an address of its own (privacy addresses rotate).
    expect(tooFast(velocity, visitor('2003:e1:bf00:0:aaaa:bbbb:cccc:dddd'), T0 + 3 * SECOND)).toBe(true);
    expect(tooFast(velocity, visitor('2003:e1:bf00:1::1'), T0 + 3 * SECOND)).toBe(false);
  });
});

/** A browser of its own: another build number, as a sender that varies its user agent writes it. */
function browser(n: number): string {
  return CHROME.replace('126.0.0.0', `126.0.${n}.0`);
}

describe('click velocity per network (an IPv4 address, an IPv6 /56), whatever the user agent', () => {
  it('allows 6 clicks in 10 s from one address with a new user agent each, and refuses the rest', () => {
    expect(NETWORK_CLICK_VELOCITY_LIMITS[0]).toEqual({ events: 6, windowMs: 10 * SECOND });
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 10 }, (_, n) => tooFast(velocity, visitor('73.162.10.20', browser(n)), T0 + n * 200));
    expect(verdicts).toEqual([...Array<boolean>(6).fill(false), ...Array<boolean>(4).fill(true)]);
    // Another address is another network.
    expect(tooFast(velocity, visitor('73.162.10.21', browser(99)), T0 + 2 * SECOND)).toBe(false);
  });

  it('allows 60 clicks in 10 minutes from one address, one every 9.5 s with a new user agent each, and refuses the 61st', () => {
    expect(NETWORK_CLICK_VELOCITY_LIMITS[1]).toEqual({ events: 60, windowMs: 10 * MINUTE });
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 62 }, (_, n) => tooFast(velocity, visitor('73.162.10.20', browser(n)), T0 + n * 9500));
    expect(verdicts.flatMap((refusedIt, n) => (refusedIt ? [n] : []))).toEqual([60, 61]);
  });

  it('takes every /64 of a /56 as one network: a sender that picks another /64 and user agent for each click is refused after 6', () => {
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 10 }, (_, n) => tooFast(velocity, visitor(`2003:e1:bf00:${(n * 17).toString(16)}::1`, browser(n)), T0 + n * 200));
    expect(verdicts.filter(Boolean)).toHaveLength(4);
    expect(verdicts.slice(0, 6)).toEqual(Array<boolean>(6).fill(false));
    // The next /56 is another network.
    expect(tooFast(velocity, visitor('2003:e1:bf00:100::1', browser(50)), T0 + 2 * SECOND)).toBe(false);
  });

  it("leaves a shared address's other readers alone while one visitor there clicks too fast: only the clicks its own limit let through count", () => {
    const velocity = clickVelocity();
    const flood = Array.from({ length: 40 }, (_, n) => T0 + n * 35);
    expect(refused(velocity, visitor('73.162.10.20'), flood)).toHaveLength(37);
    const others = [0, 1, 2].map((n) => tooFast(velocity, visitor('73.162.10.20', browser(n + 1)), T0 + 2 * SECOND + n * 100));
    expect(others).toEqual([false, false, false]);
  });

  it('never refuses a carrier NAT address: 100 readers with their own browsers, each clicking twice an hour at random for 3 hours', () => {
    const velocity = clickVelocity();
    // A fixed pseudo-random sequence (a linear congruential generator), so the test is the same every run.
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const clicks = Array.from({ length: 100 }, (_, reader) => Array.from({ length: 6 }, () => ({ reader, at: T0 + Math.floor(random() * 3 * 60 * MINUTE) }))).flat();
    clicks.sort((a, b) => a.at - b.at);
    expect(clicks.filter(({ reader, at }) => tooFast(velocity, visitor('73.162.10.20', browser(reader)), at))).toEqual([]);
  });
});

describe("click velocity per publisher and block (an IPv4 /24, an IPv6 /48), whatever the addresses and user agents: a block that clicks what it is shown", () => {
  it("allows 20 clicks of a publisher's placements in 10 s from addresses of one /24, each clicking once, and refuses the rest; another publisher or /24 is not counted with them", () => {
    expect(DEFAULT_LIMITS.per10s).toBe(20);
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 25 }, (_, n) => tooFast(velocity, visitor(`73.190.7.${n + 1}`), T0 + n * 100));
    expect(verdicts).toEqual([...Array<boolean>(20).fill(false), ...Array<boolean>(5).fill(true)]);
    expect(velocity.judge(visitor('73.190.7.99'), PUBLISHER, T0 + 3 * SECOND).tooFast).toBe('placement_click_velocity');
    expect(tooFast(velocity, visitor('73.190.7.99'), T0 + 3 * SECOND, 'pubB')).toBe(false);
    expect(tooFast(velocity, visitor('73.190.8.1'), T0 + 3 * SECOND)).toBe(false);
  });

  it('allows 120 in 10 minutes (one every 4.9 s, a new address each) and refuses the 121st', () => {
    expect(DEFAULT_LIMITS.per10min).toBe(120);
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 122 }, (_, n) => tooFast(velocity, visitor(`73.190.7.${(n % 250) + 1}`), T0 + n * 4900));
    expect(verdicts.flatMap((refusedIt, n) => (refusedIt ? [n] : []))).toEqual([120, 121]);
  });

  it('takes every /56 of an IPv6 /48 as one block', () => {
    const velocity = clickVelocity();
    const verdicts = Array.from({ length: 22 }, (_, n) => tooFast(velocity, visitor(`2003:e1:bf00:${(n * 256).toString(16)}::1`), T0 + n * 100));
    expect(verdicts.filter(Boolean)).toHaveLength(2);
    expect(tooFast(velocity, visitor('2003:e1:bf01::1'), T0 + 3 * SECOND)).toBe(false);
  });

  it('never refuses a university /24: 250 readers on their own addresses, each clicking the placement twice an hour at random for 3 hours', () => {
    const velocity = clickVelocity();
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const clicks = Array.from({ length: 250 }, (_, reader) => Array.from({ length: 6 }, () => ({ reader, at: T0 + Math.floor(random() * 3 * 60 * MINUTE) }))).flat();
    clicks.sort((a, b) => a.at - b.at);
    expect(clicks.filter(({ reader, at }) => tooFast(velocity, visitor(`73.190.7.${reader + 1}`), at))).toEqual([]);
  });
});

describe("click velocity per publisher and block: judged by the block's click-through on the placement, not its count alone (try36 M2)", () => {
  /** Readers on one block, shown the placement's ads (valid impressions) and clicking `share` of them, spread evenly over `minutes`. */
  function crowd(blocks: PlacementBlocks, addressOf: (n: number) => string, impressions: number, share: number, minutes: number) {
    const velocity = clickVelocity(blocks);
    const step = (minutes * MINUTE) / impressions;
    const refusedClicks: number[] = [];
    let clicks = 0;
    for (let n = 0; n < impressions; n++) {
      const at = T0 + Math.floor(n * step);
      const reader = visitor(addressOf(n));
      blocks.impression(reader, PUBLISHER, at);
      // The reader clicks a few seconds after the ad came into view.
      if (Math.floor((n + 1) * share) > Math.floor(n * share)) {
        clicks += 1;
        if (tooFast(velocity, reader, at + 3 * SECOND)) refusedClicks.push(n);
      }
    }
    return { clicks, refused: refusedClicks.length };
  }

  it("never refuses a popular chat publisher's readers behind one carrier CGNAT /24: 12,000 ads shown and 720 clicks (6 %) in 30 minutes, 240 every 10", () => {
    const { clicks, refused: refusedCount } = crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `172.58.${40}.${(n * 7) % 254 + 1}`, 12_000, 0.06, 30);
    expect(clicks).toBe(720);
    expect(refusedCount).toBe(0);
  });

  it("nor its readers on one carrier's IPv6 /48, each phone its own /64: 30 clicks in 2.5 s among 600 ads shown there", () => {
    const blocks = new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5));
    const velocity = clickVelocity(blocks);
    const phone = (n: number) => visitor(`2607:fb90:4321:${(n + 1).toString(16)}00::1`);
    for (let n = 0; n < 600; n++) blocks.impression(phone(n), PUBLISHER, T0 + n * 500);
    const at = T0 + 300 * SECOND;
    expect(Array.from({ length: 30 }, (_, n) => tooFast(velocity, phone(n * 20), at + n * 80)).filter(Boolean)).toEqual([]);
  });

  it('still refuses a block that clicks what it is shown (a publisher clicking its own ads: ~100 %), past the counts', () => {
    const { clicks, refused: refusedCount } = crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `73.190.7.${(n % 250) + 1}`, 300, 1, 10);
    expect(clicks).toBe(300);
    expect(refusedCount).toBe(300 - 120);
  });

  it('refuses beyond the counts once the click-through passes PLACEMENT_CLICK_THROUGH_MAX (0.2): one click in four ads is refused, one in six is not', () => {
    expect(DEFAULT_LIMITS.maxClickThrough).toBe(0.2);
    expect(crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `73.190.8.${(n % 250) + 1}`, 1200, 0.25, 10).refused).toBeGreaterThan(0);
    expect(crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `73.190.9.${(n % 250) + 1}`, 1200, 1 / 6, 10).refused).toBe(0);
  });

  it('refuses past 10 times the counts whatever the click-through: a /24 firing six pixels per click (17 %) bills at most 1,200 in 10 minutes', () => {
    // 250 addresses, each 6 clicks in 10 minutes: under the visitor's and the network's limits, and
    // at 0.17 under PLACEMENT_CLICK_THROUGH_MAX (the sampled impressions' estimate is a few per cent
    // off either way), so only the block's hard cap refuses them.
    const sender = crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `73.190.10.${(n % 250) + 1}`, 9_200, 0.17, 10);
    expect(sender.clicks).toBe(1564);
    expect(sender.clicks - sender.refused).toBe(10 * DEFAULT_LIMITS.per10min);
    const burst = crowd(new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5)), (n) => `73.190.11.${(n % 250) + 1}`, 1_500, 0.17, 5 / 60);
    // And 255 clicks of it in 5 s bill at most 200 (10 x PLACEMENT_CLICK_VELOCITY_10S).
    expect(burst.clicks).toBe(255);
    expect(burst.clicks - burst.refused).toBeLessThanOrEqual(10 * DEFAULT_LIMITS.per10s);
    expect(burst.refused).toBeGreaterThan(50);
  });

  it("judges a block's click-through by its own impressions whatever the order pixels arrive in: ten publishers in turn, 2 % clicked, none refused", () => {
    // The track bench's order: every tenth pixel is the same placement. Every eighth pixel of the
    // instance, the sample before, never fell on one of them: the block's 2,000 ads shown counted
    // as none, and its readers' 21st click in 10 s was refused.
    const blocks = new PlacementBlocks(DEFAULT_LIMITS, seededRandom(5));
    const velocity = clickVelocity(blocks);
    const reader = (n: number) => visitor(`90.12.237.${(n % 250) + 1}`);
    for (let n = 0; n < 20_000; n++) blocks.impression(reader(n), n % 10 === 0 ? PUBLISHER : `pub${n % 10}`, T0 + n * 10);
    const at = T0 + 200 * SECOND;
    expect(Array.from({ length: 40 }, (_, n) => tooFast(velocity, reader(n * 7), at + n * 200)).filter(Boolean)).toEqual([]);
  });

  it('takes its settings: higher counts let more through, a click-through of 0 judges the counts alone, 0 counts turn the rule off', () => {
    const selfClicking = (limits: PlacementClickLimits) => crowd(new PlacementBlocks(limits, seededRandom(5)), (n) => `73.190.7.${(n % 250) + 1}`, 300, 1, 10).refused;
    expect(selfClicking({ per10s: 20, per10min: 250, maxClickThrough: 0.2 })).toBe(50);
    expect(selfClicking({ per10s: 0, per10min: 0, maxClickThrough: 0.2 })).toBe(0);
    const chatCrowd = crowd(new PlacementBlocks({ ...DEFAULT_LIMITS, maxClickThrough: 0 }), (n) => `172.58.40.${(n % 254) + 1}`, 4000, 0.06, 10);
    expect(chatCrowd).toEqual({ clicks: 240, refused: 120 });
  });
});
