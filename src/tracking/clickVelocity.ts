import { parseAddressText } from '../ivt/addressText.js';
import type { Visitor } from './visitor.js';

/**
 * How many billable clicks one visitor may make in a sliding window: a click beyond it is
 * `click_velocity`. Each click is on a distinct serve (a second click of a serve is a duplicate
 * before this rule), so each needs a chat answer of its own, its ad rendered (the impression), a
 * second to read it, and a navigation to the advertiser's page. One person does that a few times an
 * hour; 3 in 10 seconds or 20 in 10 minutes (one every 30 s, sustained) nobody does, and a few dozen
 * heavy chat users behind one NAT address with the same browser build (an office, a mobile
 * carrier's CGNAT) stay well below both.
 */
export const CLICK_VELOCITY_LIMITS = [
  { clicks: 3, windowMs: 10_000 },
  { clicks: 20, windowMs: 600_000 },
] as const;

const LONGEST_WINDOW_MS = Math.max(...CLICK_VELOCITY_LIMITS.map((limit) => limit.windowMs));
const MOST_CLICKS = Math.max(...CLICK_VELOCITY_LIMITS.map((limit) => limit.clicks));

/**
 * Per-process count of each visitor's recent clicks that got as far as this rule (no earlier reason
 * applied), itself kept in memory only: no query on the click's path, and a burst is over long
 * before another instance could learn of it through ClickHouse (one flush plus one read). So with N
 * instances and a visitor's clicks spread over them, at most N times each limit is billed in its
 * window (exactly the limit behind a load balancer with client-address affinity), and a restart
 * forgets the counts. The clicks this rule refuses are counted too, so a visitor that keeps clicking
 * faster than a limit stays refused until it slows down.
 *
 * A visitor is the address and the user agent as stored; an IPv6 address is taken by its /64, which
 * a device or a home has whole and picks addresses in at will (privacy addresses rotate).
 * Each visitor keeps the times of its last MOST_CLICKS counted clicks, about 400 bytes; past
 * VISITOR_CAPACITY the visitor that clicked least recently is forgotten first (which only ever lets
 * a click be billed, never refuses one).
 */
export class ClickVelocity {
  private readonly visitors = new Map<string, number[]>();

  /** Counts the visitor's click at nowMs; true when it is beyond a limit. */
  tooFast(visitor: Visitor, nowMs: number): boolean {
    const key = visitorKey(visitor);
    const times = this.visitors.get(key) ?? [];
    const tooFast = CLICK_VELOCITY_LIMITS.some(({ clicks, windowMs }) => {
      const nth = times[times.length - clicks];
      return nth !== undefined && nowMs - nth < windowMs;
    });
    const kept = times.filter((time) => nowMs - time < LONGEST_WINDOW_MS).slice(-(MOST_CLICKS - 1));
    kept.push(nowMs);
    // Deleted and set again, so the Map's insertion order is the order visitors last clicked in.
    this.visitors.delete(key);
    if (this.visitors.size >= VISITOR_CAPACITY) this.visitors.delete(this.visitors.keys().next().value!);
    this.visitors.set(key, kept);
    return tooFast;
  }
}

/** About 40 MB at most; a visitor past its last window is worth nothing kept. */
const VISITOR_CAPACITY = 100_000;

function visitorKey({ ip, userAgent }: Visitor): string {
  const parsed = parseAddressText(ip.ip);
  const network = parsed?.family === 'ipv6' ? `${parsed.high}:${parsed.low}/64` : ip.ip;
  return `${network} ${userAgent}`;
}
