import { describe, expect, it } from 'vitest';
import { BLOCK_CLICK_VELOCITY_LIMITS, CLICK_VELOCITY_LIMITS, ClickVelocity, NETWORK_CLICK_VELOCITY_LIMITS } from '../../src/tracking/clickVelocity.js';
import type { Visitor } from '../../src/tracking/visitor.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0';

function visitor(ip: string, userAgent = CHROME): Visitor {
  return { ip: { ip, ipClass: 'public', network: '', ivt: '' }, userAgent, ivt: '' };
}

/** Judges a click and counts it (as the tracker does once it is stored); true when it is refused. */
function tooFast(velocity: ClickVelocity, who: Visitor, time: number, placement = PLACEMENT): boolean {
  const pace = velocity.judge(who, placement, time);
  pace.count();
  return pace.tooFast !== false;
}

/** Which of the clicks at these times (ms) the rule refuses. */
function refused(velocity: ClickVelocity, who: Visitor, times: number[]): number[] {
  return times.filter((time) => tooFast(velocity, who, time));
}

const PLACEMENT = 'pA';
const T0 = 1_800_000_000_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('click velocity (per visitor: address, IPv6 by its /64, and user agent)', () => {
  it('allows 3 clicks in 10 s and refuses the 4th', () => {
    expect(CLICK_VELOCITY_LIMITS[0]).toEqual({ events: 3, windowMs: 10 * SECOND });
    const times = [0, 1, 2, 3, 4].map((n) => T0 + n * 2 * SECOND);
    expect(refused(new ClickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(3));
  });

  it('allows 20 clicks in 10 minutes and refuses the 21st, even spread out past the 10-second limit', () => {
    expect(CLICK_VELOCITY_LIMITS[1]).toEqual({ events: 20, windowMs: 10 * MINUTE });
    const times = Array.from({ length: 22 }, (_, n) => T0 + n * 5 * SECOND);
    expect(refused(new ClickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(20));
  });

  it('keeps refusing a visitor that keeps clicking fast, and lets it click again once it slowed down', () => {
    const velocity = new ClickVelocity();
    const who = visitor('73.162.10.20');
    const flood = Array.from({ length: 40 }, (_, n) => T0 + n * 35);
    expect(refused(velocity, who, flood)).toHaveLength(37);
    expect(tooFast(velocity, who, T0 + 5 * SECOND)).toBe(true);
    expect(tooFast(velocity, who, T0 + 10 * MINUTE + 6 * SECOND)).toBe(false);
  });

  it('never refuses an eager reader: a click every 31 s for three hours, or 3 quick ones now and then', () => {
    const velocity = new ClickVelocity();
    const steady = Array.from({ length: 3 * 60 * 2 }, (_, n) => T0 + n * 31 * SECOND);
    expect(refused(velocity, visitor('73.162.10.20'), steady)).toEqual([]);
    const bursts = Array.from({ length: 6 }, (_, n) => [0, 2, 4].map((s) => T0 + n * 2 * MINUTE + s * SECOND)).flat();
    // A velocity of its own: the steady reader's clicks run three hours ahead of these, in the same /24.
    expect(refused(new ClickVelocity(), visitor('73.162.10.21'), bursts)).toEqual([]);
  });

  it('counts another address or another user agent as another visitor, and one IPv6 /64 as one', () => {
    const velocity = new ClickVelocity();
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
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 10 }, (_, n) => tooFast(velocity, visitor('73.162.10.20', browser(n)), T0 + n * 200));
    expect(verdicts).toEqual([...Array<boolean>(6).fill(false), ...Array<boolean>(4).fill(true)]);
    // Another address is another network.
    expect(tooFast(velocity, visitor('73.162.10.21', browser(99)), T0 + 2 * SECOND)).toBe(false);
  });

  it('allows 60 clicks in 10 minutes from one address, one every 9.5 s with a new user agent each, and refuses the 61st', () => {
    expect(NETWORK_CLICK_VELOCITY_LIMITS[1]).toEqual({ events: 60, windowMs: 10 * MINUTE });
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 62 }, (_, n) => tooFast(velocity, visitor('73.162.10.20', browser(n)), T0 + n * 9500));
    expect(verdicts.flatMap((refusedIt, n) => (refusedIt ? [n] : []))).toEqual([60, 61]);
  });

  it('takes every /64 of a /56 as one network: a sender that picks another /64 and user agent for each click is refused after 6', () => {
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 10 }, (_, n) => tooFast(velocity, visitor(`2003:e1:bf00:${(n * 17).toString(16)}::1`, browser(n)), T0 + n * 200));
    expect(verdicts.filter(Boolean)).toHaveLength(4);
    expect(verdicts.slice(0, 6)).toEqual(Array<boolean>(6).fill(false));
    // The next /56 is another network.
    expect(tooFast(velocity, visitor('2003:e1:bf00:100::1', browser(50)), T0 + 2 * SECOND)).toBe(false);
  });

  it("leaves a shared address's other readers alone while one visitor there clicks too fast: only the clicks its own limit let through count", () => {
    const velocity = new ClickVelocity();
    const flood = Array.from({ length: 40 }, (_, n) => T0 + n * 35);
    expect(refused(velocity, visitor('73.162.10.20'), flood)).toHaveLength(37);
    const others = [0, 1, 2].map((n) => tooFast(velocity, visitor('73.162.10.20', browser(n + 1)), T0 + 2 * SECOND + n * 100));
    expect(others).toEqual([false, false, false]);
  });

  it('never refuses a carrier NAT address: 100 readers with their own browsers, each clicking twice an hour at random for 3 hours', () => {
    const velocity = new ClickVelocity();
    // A fixed pseudo-random sequence (a linear congruential generator), so the test is the same every run.
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const clicks = Array.from({ length: 100 }, (_, reader) => Array.from({ length: 6 }, () => ({ reader, at: T0 + Math.floor(random() * 3 * 60 * MINUTE) }))).flat();
    clicks.sort((a, b) => a.at - b.at);
    expect(clicks.filter(({ reader, at }) => tooFast(velocity, visitor('73.162.10.20', browser(reader)), at))).toEqual([]);
  });
});

describe("click velocity per placement and block (an IPv4 /24, an IPv6 /48), whatever the addresses and user agents", () => {
  it('allows 20 clicks of a placement in 10 s from addresses of one /24, each clicking once, and refuses the rest; another placement or /24 is not counted with them', () => {
    expect(BLOCK_CLICK_VELOCITY_LIMITS[0]).toEqual({ events: 20, windowMs: 10 * SECOND });
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 25 }, (_, n) => tooFast(velocity, visitor(`73.190.7.${n + 1}`), T0 + n * 100));
    expect(verdicts).toEqual([...Array<boolean>(20).fill(false), ...Array<boolean>(5).fill(true)]);
    expect(velocity.judge(visitor('73.190.7.99'), PLACEMENT, T0 + 3 * SECOND).tooFast).toBe('placement_click_velocity');
    expect(tooFast(velocity, visitor('73.190.7.99'), T0 + 3 * SECOND, 'pB')).toBe(false);
    expect(tooFast(velocity, visitor('73.190.8.1'), T0 + 3 * SECOND)).toBe(false);
  });

  it('allows 120 in 10 minutes (one every 4.9 s, a new address each) and refuses the 121st', () => {
    expect(BLOCK_CLICK_VELOCITY_LIMITS[1]).toEqual({ events: 120, windowMs: 10 * MINUTE });
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 122 }, (_, n) => tooFast(velocity, visitor(`73.190.7.${(n % 250) + 1}`), T0 + n * 4900));
    expect(verdicts.flatMap((refusedIt, n) => (refusedIt ? [n] : []))).toEqual([120, 121]);
  });

  it('takes every /56 of an IPv6 /48 as one block', () => {
    const velocity = new ClickVelocity();
    const verdicts = Array.from({ length: 22 }, (_, n) => tooFast(velocity, visitor(`2003:e1:bf00:${(n * 256).toString(16)}::1`), T0 + n * 100));
    expect(verdicts.filter(Boolean)).toHaveLength(2);
    expect(tooFast(velocity, visitor('2003:e1:bf01::1'), T0 + 3 * SECOND)).toBe(false);
  });

  it('never refuses a university /24: 250 readers on their own addresses, each clicking the placement twice an hour at random for 3 hours', () => {
    const velocity = new ClickVelocity();
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const clicks = Array.from({ length: 250 }, (_, reader) => Array.from({ length: 6 }, () => ({ reader, at: T0 + Math.floor(random() * 3 * 60 * MINUTE) }))).flat();
    clicks.sort((a, b) => a.at - b.at);
    expect(clicks.filter(({ reader, at }) => tooFast(velocity, visitor(`73.190.7.${reader + 1}`), at))).toEqual([]);
  });
});
