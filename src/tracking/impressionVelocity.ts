import type { Visitor } from './visitor.js';
import { addressKeys } from './visitorKeys.js';
import { freshCounts, KeyGenerations, longIn, roll, shortIn, type Counts } from './windowCounts.js';

/** IMPRESSION_VELOCITY_10S and IMPRESSION_VELOCITY_10MIN: at most this many billable impressions of one publisher's placements from one network in any 10 s and any 10 minutes; 0 leaves that window unlimited. */
interface ImpressionVelocityLimits {
  per10s: number;
  per10min: number;
}

/**
 * How many otherwise billable (tCPM) impressions of one publisher's placements one network may make in a sliding
 * window: one beyond it is `impression_velocity`. Each is a serve of its own (a second pixel of a
 * serve is a duplicate before this rule), so each needs a chat answer of the publisher, rendered and
 * in view: a person gets one every few seconds at the very most, a few a minute kept up. The
 * defaults (30 in 10 s, 600 in 10 minutes: one a second kept up) are far above that because one
 * IPv4 address is often many people (a carrier's CGNAT, an office): tens of them reading the same
 * publisher's chat at once, each one answer every 30 s, stay under them. A publisher's script that
 * requests serves and fires their pixels from one home address gets no more than that.
 *
 * The network is the address, an IPv6 address by its /56, whatever the user agent (the sender's to
 * choose), as click velocity takes it (clickVelocity.ts says why); keyed with the publisher (signed
 * into every token), so one busy publisher does not use up another's, and not with the placement: a
 * publisher holding P placements got P times the limit from one address (try41 F1), and placements
 * are made on request, one per page or position. Counted in each process's memory when judged, before
 * the write, so that the pixels of one burst, which arrive in the same turn, see each other; only
 * the impressions the rule lets through count, so a network keeps getting its limit and no more.
 *
 * Not slidingWindowLimits.ts, which keeps every counted time (600 per key here) and reorders its map
 * on every count, on the busiest path: the sliding-window counter of windowCounts.ts, off by at most
 * the previous bucket's unevenness, which limits this generous do not feel. The keys live in two
 * generations (KeyGenerations): one dropped early only ever lets impressions through.
 */
export class ImpressionVelocity {
  private readonly perShort: number;
  private readonly perLong: number;
  private readonly keys = new KeyGenerations<Counts>(GENERATION_CAPACITY, freshCounts);

  constructor({ per10s, per10min }: ImpressionVelocityLimits) {
    this.perShort = per10s;
    this.perLong = per10min;
  }

  /** Whether the visitor's impression of a placement of the publisher at nowMs is beyond a limit; counted when it is not. */
  tooFast(visitor: Visitor, publisherId: string, nowMs: number): boolean {
    if (this.perShort === 0 && this.perLong === 0) return false;
    // An IPv4 address is its own network: no parse on the usual pixel.
    const network = visitor.ip.ip.includes(':') ? addressKeys(visitor).network : visitor.ip.ip;
    const key = `${network} ${publisherId}`;
    const counts = this.keys.of(key, nowMs);
    roll(counts, nowMs);
    if (this.perShort > 0 && shortIn(counts, nowMs) >= this.perShort) return true;
    if (this.perLong > 0 && longIn(counts, nowMs) >= this.perLong) return true;
    counts.shortCount++;
    counts.longCount++;
    return false;
  }
}

/**
 * Keys a generation holds before it is swapped out early: 100,000 is 170 new networks a second on
 * one instance within 10 minutes. About 20 MB for the two.
 */
const GENERATION_CAPACITY = 100_000;
