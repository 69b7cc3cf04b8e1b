import { describe, expect, it } from 'vitest';
import { CLICK_VELOCITY_LIMITS, ClickVelocity } from '../../src/tracking/clickVelocity.js';
import type { Visitor } from '../../src/tracking/visitor.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0';

function visitor(ip: string, userAgent = CHROME): Visitor {
  return { ip: { ip, ipClass: 'public', network: '', ivt: '' }, userAgent, ivt: '' };
}

/** Which of the clicks at these times (ms) the rule refuses. */
function refused(velocity: ClickVelocity, who: Visitor, times: number[]): number[] {
  return times.filter((time) => velocity.tooFast(who, time));
}

const T0 = 1_800_000_000_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('click velocity (per visitor: address, IPv6 by its /64, and user agent)', () => {
  it('allows 3 clicks in 10 s and refuses the 4th', () => {
    expect(CLICK_VELOCITY_LIMITS[0]).toEqual({ clicks: 3, windowMs: 10 * SECOND });
    const times = [0, 1, 2, 3, 4].map((n) => T0 + n * 2 * SECOND);
    expect(refused(new ClickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(3));
  });

  it('allows 20 clicks in 10 minutes and refuses the 21st, even spread out past the 10-second limit', () => {
    expect(CLICK_VELOCITY_LIMITS[1]).toEqual({ clicks: 20, windowMs: 10 * MINUTE });
    const times = Array.from({ length: 22 }, (_, n) => T0 + n * 5 * SECOND);
    expect(refused(new ClickVelocity(), visitor('73.162.10.20'), times)).toEqual(times.slice(20));
  });

  it('keeps refusing a visitor that keeps clicking fast, and lets it click again once it slowed down', () => {
    const velocity = new ClickVelocity();
    const who = visitor('73.162.10.20');
    const flood = Array.from({ length: 40 }, (_, n) => T0 + n * 35);
    expect(refused(velocity, who, flood)).toHaveLength(37);
    expect(velocity.tooFast(who, T0 + 5 * SECOND)).toBe(true);
    expect(velocity.tooFast(who, T0 + 10 * MINUTE + 6 * SECOND)).toBe(false);
  });

  it('never refuses an eager reader: a click every 31 s for three hours, or 3 quick ones now and then', () => {
    const velocity = new ClickVelocity();
    const steady = Array.from({ length: 3 * 60 * 2 }, (_, n) => T0 + n * 31 * SECOND);
    expect(refused(velocity, visitor('73.162.10.20'), steady)).toEqual([]);
    const bursts = Array.from({ length: 6 }, (_, n) => [0, 2, 4].map((s) => T0 + n * 2 * MINUTE + s * SECOND)).flat();
    expect(refused(velocity, visitor('73.162.10.21'), bursts)).toEqual([]);
  });

  it('counts another address or another user agent as another visitor, and one IPv6 /64 as one', () => {
    const velocity = new ClickVelocity();
    const times = [0, 1, 2].map((n) => T0 + n * SECOND);
    for (const who of [visitor('73.162.10.20'), visitor('73.162.10.21'), visitor('73.162.10.20', FIREFOX), visitor('2003:e1:bf00::1')]) {
      expect(refused(velocity, who, times)).toEqual([]);
    }
    // A fourth click of the /64 of 2003:e1:bf00::1, from an address of its own (privacy addresses rotate).
    expect(velocity.tooFast(visitor('2003:e1:bf00:0:aaaa:bbbb:cccc:dddd'), T0 + 3 * SECOND)).toBe(true);
    expect(velocity.tooFast(visitor('2003:e1:bf00:1::1'), T0 + 3 * SECOND)).toBe(false);
  });
});
