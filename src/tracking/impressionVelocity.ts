import type { Visitor } from './visitor.js';
import { blockOf } from './placementBlocks.js';
import { addressKeys } from './visitorKeys.js';
import { freshCounts, KeyGenerations, longIn, roll, shortIn, type Counts } from './windowCounts.js';

/**
 * IMPRESSION_VELOCITY_10S and IMPRESSION_VELOCITY_10MIN: at most this many billable impressions of one publisher's placements from one network in any 10 s and any 10 minutes;
 * IMPRESSION_BLOCK_VELOCITY_10S and _10MIN: the same from one block (an IPv4 /24, an IPv6 /48). 0 leaves that window unlimited.
 */
interface ImpressionVelocityLimits {
  per10s: number;
  per10min: number;
  blockPer10s: number;
  blockPer10min: number;
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
 * The block (an IPv4 /24, an IPv6 /48, as placementBlocks.ts cuts it for clicks) of one publisher has
 * a limit of its own (try41 F6): without it a publisher firing its own pixels from one block, address
 * after address, had 256 times the network's limits billed (7,680 in 10 s, 153,600 in 10 minutes).
 * Sized like the clicks' hard cap, for the biggest crowd behind one block (docs/tracking.md says
 * why), so real readers never reach it. Counted exactly, not
 * sampled like placementBlocks.ts's impressions: a cap that refuses must see every impression.
 *
 * Not slidingWindowLimits.ts, which keeps every counted time (600 per key here) and reorders its map
 * on every count, on the busiest path: the sliding-window counter of windowCounts.ts, off by at most
 * the previous bucket's unevenness, which limits this generous do not feel. The keys live in two
 * generations (KeyGenerations): one dropped early only ever lets impressions through.
 */
export class ImpressionVelocity {
  private readonly perShort: number;
  private readonly perLong: number;
  private readonly blockPerShort: number;
  private readonly blockPerLong: number;
  private readonly keys = new KeyGenerations<NetworkCounts>(GENERATION_CAPACITY, freshNetworkCounts);
  private readonly blocks = new KeyGenerations<Counts>(BLOCK_GENERATION_CAPACITY, freshCounts);

  constructor({ per10s, per10min, blockPer10s, blockPer10min }: ImpressionVelocityLimits) {
    this.perShort = per10s;
    this.perLong = per10min;
    this.blockPerShort = blockPer10s;
    this.blockPerLong = blockPer10min;
  }

  /** Whether the visitor's impression of a placement of the publisher at nowMs is beyond a limit; counted when it is not. */
  tooFast(visitor: Visitor, publisherId: string, nowMs: number): boolean {
    const byNetwork = this.perShort > 0 || this.perLong > 0;
    const byBlock = this.blockPerShort > 0 || this.blockPerLong > 0;
    if (!byNetwork && !byBlock) return false;
    // An IPv4 address is its own network: no parse on the usual pixel.
    const ipv6 = visitor.ip.ip.includes(':') ? addressKeys(visitor) : undefined;
    const counts = byNetwork ? this.keys.of(`${ipv6?.network ?? visitor.ip.ip} ${publisherId}`, nowMs) : undefined;
    if (counts !== undefined && over(counts, nowMs, this.perShort, this.perLong)) return true;
    const block = byBlock ? this.blockOf(counts, ipv6, visitor, publisherId, nowMs) : undefined;
    if (block !== undefined && over(block, nowMs, this.blockPerShort, this.blockPerLong)) return true;
    // Counted only when both let it through: a network or block keeps getting its limit and no more.
    if (counts !== undefined) count(counts);
    if (block !== undefined) count(block);
    return false;
  }

  /**
   * The block's counts, as `blocks.of` gives them: the network's entry keeps the ones it was last
   * given (a network lies in one block) with the blocks' generation then, so a repeat network whose
   * block the current generation already holds costs no key string and no lookup (rev41 R9).
   */
  private blockOf(network: NetworkCounts | undefined, ipv6: { block: string } | undefined, visitor: Visitor, publisherId: string, nowMs: number): Counts {
    const generation = this.blocks.generationAt(nowMs);
    if (network?.block !== undefined && network.blockGeneration === generation) return network.block;
    const block = this.blocks.of(`${ipv6?.block ?? blockOf(visitor.ip.ip)} ${publisherId}`, nowMs);
    if (network !== undefined) {
      network.block = block;
      network.blockGeneration = generation;
    }
    return block;
  }
}

/** A network's counts, and its block's as the blocks' generation `blockGeneration` gave them (undefined: not yet). */
interface NetworkCounts extends Counts {
  block: Counts | undefined;
  blockGeneration: number;
}

/** freshCounts' fields written out: `{ ...freshCounts(), block, blockGeneration }` cost a new network's pixel 3.5 us more in process (pix42). */
function freshNetworkCounts(): NetworkCounts {
  return { shortBucket: -2, shortCount: 0, shortBefore: 0, longBucket: -2, longCount: 0, longBefore: 0, block: undefined, blockGeneration: -1 };
}

/** Whether one more impression of the counts at nowMs is beyond a limit (0: that window unlimited). */
function over(counts: Counts, nowMs: number, perShort: number, perLong: number): boolean {
  roll(counts, nowMs);
  return (perShort > 0 && shortIn(counts, nowMs) >= perShort) || (perLong > 0 && longIn(counts, nowMs) >= perLong);
}

function count(counts: Counts): void {
  counts.shortCount++;
  counts.longCount++;
}

/** Block-and-publisher keys a generation holds, as placementBlocks.ts's: about 15 MB for the two. */
const BLOCK_GENERATION_CAPACITY = 50_000;

/**
 * Keys a generation holds before it is swapped out early: 100,000 is 170 new networks a second on
 * one instance within 10 minutes. About 20 MB for the two.
 */
const GENERATION_CAPACITY = 100_000;
