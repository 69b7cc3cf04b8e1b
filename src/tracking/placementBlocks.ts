import type { Visitor } from './visitor.js';
import { addressKeys } from './visitorKeys.js';
import { freshCounts, KeyGenerations, longIn, roll, shortIn, type Counts } from './windowCounts.js';

/**
 * PLACEMENT_CLICK_VELOCITY_10S, PLACEMENT_CLICK_VELOCITY_10MIN (0 leaves that window unlimited) and
 * PLACEMENT_CLICK_THROUGH_MAX (0 judges the counts alone): configuration.md.
 */
export interface PlacementClickLimits {
  per10s: number;
  per10min: number;
  maxClickThrough: number;
}

/** A block's clicks and valid impressions of one publisher's placements. */
interface BlockCounts {
  clicks: Counts;
  impressions: Counts;
}

/**
 * One publisher's clicks from one block of addresses (an IPv4 /24, an IPv6 /48), of all its
 * placements together, against that block's own valid impressions of them: keyed with the publisher
 * (signed into every token), not the placement, since a publisher holding P placements got P times
 * every count and cap from one block (try41 F1). `placement_click_velocity` is a click beyond
 * PLACEMENT_CLICK_VELOCITY_10S in 10 s or _10MIN in 10 minutes **while** the block's click-through
 * on the placement over the last 10 minutes (its clicks, this one included, against its valid
 * impressions) is above PLACEMENT_CLICK_THROUGH_MAX. The name stays the placement's: the click
 * refused, and the warning, name the placement it was of.
 *
 * Why the click-through and not the count alone: a publisher clicking its own ads from a block it
 * holds (try35 M4) needs a valid impression for each click (or the click is
 * click_without_impression) and has no reason to fire any it does not click, so it runs at ~100 %;
 * a crowd of real readers behind one block (a carrier's CGNAT /24 is thousands of subscribers, an
 * IPv6 /48 of a carrier that gives each phone a /64 is up to 65,536 phones) clicks a few per cent of
 * what it is shown, however many of them there are (try36 M2: a fixed 120 in 10 minutes refused a
 * big chat publisher's readers). So the counts are only where the click-through starts to be
 * judged. A sender that fires more pixels than it clicks (five serves and pixels per click at the
 * default 0.2) passes that test, so HARD_CAP_FACTOR times the counts (200 in 10 s, 1,200 in 10
 * minutes) refuse a block's clicks whatever its click-through: without it a self-clicking /24 was
 * bounded only per address (256 x 60, some 15,000 billed clicks in 10 minutes).
 *
 * Kept in each process's memory like impression velocity (impressionVelocity.ts): the
 * sliding-window counter of windowCounts.ts, keys in two generations swapped every 10 minutes or
 * when full. A key is kept or forgotten whole (its clicks with its impressions), and a forgotten
 * key only lets clicks through. Behind a load balancer without affinity a block's pixels and clicks
 * spread alike over the instances, so each instance sees about the same click-through.
 */
export class PlacementBlocks {
  private readonly keys = new KeyGenerations<BlockCounts>(GENERATION_CAPACITY, () => ({ clicks: freshCounts(), impressions: freshCounts() }));
  /**
   * @param random where each valid impression is drawn into the sample (Math.random; a test gives a
   * seeded one so its counts are the same every run)
   */
  constructor(
    private readonly limits: PlacementClickLimits,
    private readonly random: () => number = Math.random,
  ) {}

  /** The key of the visitor's block on the publisher's placements; an IPv4 address is cut at its last dot, no parse (the pixel's path). */
  keyOf(visitor: Visitor, publisherId: string): string {
    const ip = visitor.ip.ip;
    const block = ip.includes(':') ? addressKeys(visitor).block : blockOf(ip);
    return `${block} ${publisherId}`;
  }

  /**
   * Counts a valid impression of the publisher's placements from the visitor's block: one in IMPRESSION_SAMPLE,
   * as that many. A key, a map lookup and, for a block new to the generation, its counters on every
   * pixel cost about 0.8 us a pixel (measured in process over 100,000 addresses); sampled, about
   * an eighth of that. Each valid impression is drawn at random, one chance in IMPRESSION_SAMPLE, so a
   * sender cannot choose which of its pixels count, and a block's estimate is off by a few per cent
   * at the hundreds of impressions where the click-through is judged. Not every eighth impression of
   * the instance: traffic that arrives in a cycle (the track bench sends its placements in turn,
   * every tenth pixel the same one) had some blocks' impressions never land on an eighth, their
   * click-through judged against almost none, and their readers' clicks refused.
   */
  impression(visitor: Visitor, publisherId: string, nowMs: number): void {
    if (this.limits.per10s === 0 && this.limits.per10min === 0) return;
    if (this.random() >= 1 / IMPRESSION_SAMPLE) return;
    const { impressions } = this.keys.of(this.keyOf(visitor, publisherId), nowMs);
    roll(impressions, nowMs);
    impressions.longCount += IMPRESSION_SAMPLE;
  }

  /** Whether one more click of the block's key at nowMs is beyond the limits (nothing counted). */
  over(key: string, nowMs: number): boolean {
    const counts = this.keys.peek(key);
    if (counts === undefined) return false;
    const { per10s, per10min, maxClickThrough } = this.limits;
    roll(counts.clicks, nowMs);
    const clicks = longIn(counts.clicks, nowMs);
    const recent = shortIn(counts.clicks, nowMs);
    if (!((per10s > 0 && recent >= per10s) || (per10min > 0 && clicks >= per10min))) return false;
    if (maxClickThrough === 0) return true;
    if ((per10s > 0 && recent >= per10s * HARD_CAP_FACTOR) || (per10min > 0 && clicks >= per10min * HARD_CAP_FACTOR)) return true;
    roll(counts.impressions, nowMs);
    return clicks + 1 > maxClickThrough * longIn(counts.impressions, nowMs);
  }

  /** Counts a click of the block's key. */
  count(key: string, nowMs: number): void {
    if (this.limits.per10s === 0 && this.limits.per10min === 0) return;
    const { clicks } = this.keys.of(key, nowMs);
    roll(clicks, nowMs);
    clicks.shortCount++;
    clicks.longCount++;
  }
}

/** An IPv4 address's /24, cut at its last dot (no parse: the pixel's path); also impression velocity's block. */
export function blockOf(ipv4: string): string {
  return `${ipv4.slice(0, ipv4.lastIndexOf('.'))}/24`;
}

const IMPRESSION_SAMPLE = 8;

/**
 * The counts times this refuse a block's clicks of the publisher whatever its click-through (ivtfix36):
 * at the defaults 1,200 in 10 minutes, which readers clicking 5 % reach only when one block is shown
 * 24,000 ads of one publisher in 10 minutes (40 a second): every subscriber of the biggest CGNAT /24
 * docs/tracking.md counts (tens of thousands) reading that one publisher within the same 10 minutes.
 * A sender firing five pixels per click is held to a twelfth of what its 256 addresses' own limits
 * allowed (256 x 60).
 */
const HARD_CAP_FACTOR = 10;

/**
 * Keys a generation holds before it is swapped out early: 50,000 blocks with a valid impression of
 * one publisher within 10 minutes on one instance. About 25 MB for the two (a key, two small objects).
 */
const GENERATION_CAPACITY = 50_000;
