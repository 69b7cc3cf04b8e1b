import { addressKeys } from './clickVelocity.js';
import type { Visitor } from './visitor.js';

/** IMPRESSION_VELOCITY_10S and IMPRESSION_VELOCITY_10MIN: at most this many billable impressions of one placement from one network in any 10 s and any 10 minutes; 0 leaves that window unlimited. */
export interface ImpressionVelocityLimits {
  per10s: number;
  per10min: number;
}

const WINDOWS_MS = [10_000, 600_000] as const;

/**
 * A network's counts in one placement: per window, the bucket (time / window length) counted last,
 * its count and the count of the bucket before it.
 */
type Counts = Float64Array;
const SLOTS_PER_WINDOW = 3;

/**
 * How many otherwise billable impressions of one placement one network may make in a sliding
 * window: one beyond it is `impression_velocity`. Each is a serve of its own (a second pixel of a
 * serve is a duplicate before this rule), so each needs a chat answer of the publisher, rendered and
 * in view: a person gets one every few seconds at the very most, a few a minute kept up. The
 * defaults (30 in 10 s, 600 in 10 minutes: one a second kept up) are far above that because one
 * IPv4 address is often many people (a carrier's CGNAT, an office): tens of them reading the same
 * publisher's chat at once, each one answer every 30 s, stay under them. A publisher's script that
 * requests serves and fires their pixels from one home address gets no more than that.
 *
 * The network is the address, an IPv6 address by its /56, whatever the user agent (the sender's to
 * choose), as click velocity takes it (clickVelocity.ts says why); keyed with the placement, so one
 * busy publisher does not use up another's. Counted in each process's memory when judged, before
 * the write, so that the pixels of one burst, which arrive in the same turn, see each other; only
 * the impressions the rule lets through count, so a network keeps getting its limit and no more.
 *
 * Not slidingWindowLimits.ts, which keeps every counted time (600 per key here, on the busiest
 * path): each window is counted in buckets of its own length, the bucket before the current one
 * weighted by the share of it the sliding window still covers (the usual sliding-window counter).
 * That is exact for an even pace and off by at most the previous bucket's unevenness otherwise,
 * which limits this generous do not feel. 48 bytes a key.
 */
export class ImpressionVelocity {
  private readonly limits: number[];
  private readonly networks = new Map<string, Counts>();

  constructor({ per10s, per10min }: ImpressionVelocityLimits) {
    this.limits = [per10s, per10min];
  }

  /** Whether the visitor's impression of the placement at nowMs is beyond a limit; counted when it is not. */
  tooFast(visitor: Visitor, placementId: string, nowMs: number): boolean {
    if (this.limits[0] === 0 && this.limits[1] === 0) return false;
    const key = `${addressKeys(visitor).network} ${placementId}`;
    let counts = this.networks.get(key);
    if (counts === undefined) counts = new Float64Array(WINDOWS_MS.length * SLOTS_PER_WINDOW).fill(-2);
    for (let window = 0; window < WINDOWS_MS.length; window++) {
      const limit = this.limits[window]!;
      if (limit > 0 && estimate(counts, window, nowMs) >= limit) return true;
    }
    for (let window = 0; window < WINDOWS_MS.length; window++) add(counts, window, nowMs);
    // Deleted and set again, so the Map's insertion order is the order keys were last counted in.
    this.networks.delete(key);
    if (this.networks.size >= NETWORK_CAPACITY) this.networks.delete(this.networks.keys().next().value!);
    this.networks.set(key, counts);
    return false;
  }
}

/** The window's current bucket, with the previous one rolled in when time has moved on. */
function roll(counts: Counts, window: number, nowMs: number): void {
  const at = window * SLOTS_PER_WINDOW;
  const bucket = Math.floor(nowMs / WINDOWS_MS[window]!);
  const last = counts[at]!;
  if (bucket === last) return;
  counts[at + 2] = bucket === last + 1 ? counts[at + 1]! : 0;
  counts[at + 1] = 0;
  counts[at] = bucket;
}

/** The count in the window ending at nowMs: this bucket's, and the previous bucket's share still inside the window. */
function estimate(counts: Counts, window: number, nowMs: number): number {
  roll(counts, window, nowMs);
  const at = window * SLOTS_PER_WINDOW;
  const length = WINDOWS_MS[window]!;
  const elapsed = (nowMs % length) / length;
  return counts[at + 1]! + counts[at + 2]! * (1 - elapsed);
}

function add(counts: Counts, window: number, nowMs: number): void {
  roll(counts, window, nowMs);
  const at = window * SLOTS_PER_WINDOW + 1;
  counts[at] = counts[at]! + 1;
}

/**
 * Networks kept, the one counted least recently forgotten first (which only ever lets an impression
 * through): 100,000 is 170 new networks a second on one instance within 10 minutes. About 20 MB.
 */
const NETWORK_CAPACITY = 100_000;
