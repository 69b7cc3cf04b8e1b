import type { PlacementBlocks } from './placementBlocks.js';
import { SlidingWindowLimits, type WindowLimit } from './slidingWindowLimits.js';
import type { Visitor } from './visitor.js';
import { addressKeys } from './visitorKeys.js';

/**
 * How many billable clicks one visitor may make in a sliding window: a click beyond it is
 * `click_velocity`. Each click is on a distinct serve (a second click of a serve is a duplicate
 * before this rule), so each needs a chat answer of its own, its ad rendered (the impression), a
 * second to read it, and a navigation to the advertiser's page. One person does that a few times an
 * hour; 3 in 10 seconds or 20 in 10 minutes (one every 30 s, sustained) nobody does.
 */
export const CLICK_VELOCITY_LIMITS: readonly WindowLimit[] = [
  { events: 3, windowMs: 10_000 },
  { events: 20, windowMs: 600_000 },
];

/**
 * The same for one network, whatever the user agents (which the sender chooses): an IPv4 address, an
 * IPv6 /56. Twice the visitor's burst and three times its pace: one click every 10 s kept up for 10
 * minutes by everyone behind one address together. People behind a carrier's CGNAT address (tens to
 * a few hundred subscribers) or an office's NAT each click a chat ad a few times an hour at most,
 * and only some of them use the publisher at all; a heavy user clicking twice an hour, 180 of them
 * on one address at once, would be needed to reach the pace, and clicks of independent people bunch
 * 7 into 10 s only at a pace far above that. A script that varies its user agent gets these and no
 * more from one address.
 */
export const NETWORK_CLICK_VELOCITY_LIMITS: readonly WindowLimit[] = [
  { events: 6, windowMs: 10_000 },
  { events: 60, windowMs: 600_000 },
];

/** What click velocity says of a click, and its count, for once the click is stored. */
export interface ClickPace {
  /** The rule that refused it: the visitor's or network's pace, or the publisher's placements' from one block. */
  tooFast: 'click_velocity' | 'placement_click_velocity' | false;
  /** Counts the click: called once it is stored, so a click refused with 503 and retried counts once. */
  count(): void;
}

/**
 * Per-process counts of recent clicks that got as far as this rule (no earlier reason applied), kept
 * in memory only: no query on the click's path, and a burst is over long before another instance
 * could learn of it through ClickHouse (one flush plus one read). So with N instances and a
 * visitor's clicks spread over them, at most N times each limit is billed in its window (exactly the
 * limit behind a load balancer with client-address affinity), and a restart forgets the counts.
 *
 * A visitor is the address and the user agent as stored; an IPv6 address is taken by its /64, which
 * a device or a home has whole and picks addresses in at will (privacy addresses rotate). Its
 * network is the address alone, an IPv6 address by its /56: the delegation RIPE-690 recommends for a
 * home and the largest most homes get, so a sender cannot step out of it by picking another /64 (a
 * /48 would take up to 256 such homes, or 65,536 phones of a carrier that gives each a /64, as one).
 *
 * Every click that reaches the rule counts for its visitor, refused or not, so a visitor that keeps
 * clicking faster than a limit stays refused until it slows down; the clicks its visitor's limit let
 * through count for the network (refused by it or not), so one fast visitor uses up only its own
 * share of a shared address. Past its capacity each forgets the key counted least recently first.
 */
export class ClickVelocity {
  private readonly visitors = new SlidingWindowLimits(CLICK_VELOCITY_LIMITS, VISITOR_CAPACITY);
  private readonly networks = new SlidingWindowLimits(NETWORK_CLICK_VELOCITY_LIMITS, NETWORK_CAPACITY);

  /** The publisher's clicks from one block against the block's impressions of its placements (placementBlocks.ts), shared with the pixel. */
  constructor(private readonly blocks: PlacementBlocks) {}

  /** The verdict on the visitor's click of a placement of the publisher at nowMs; nothing is counted until `count()`. */
  judge(visitor: Visitor, publisherId: string, nowMs: number): ClickPace {
    const { address, network } = addressKeys(visitor);
    const visitorKey = `${address} ${visitor.userAgent}`;
    if (this.visitors.over(visitorKey, nowMs)) return { tooFast: 'click_velocity', count: () => this.visitors.count(visitorKey, nowMs) };
    // The clicks the visitor's and the network's limits let through count for the block, as the
    // visitor's let through count for the network: one fast address uses up only its own share.
    if (this.networks.over(network, nowMs)) {
      return {
        tooFast: 'click_velocity',
        count: () => {
          this.visitors.count(visitorKey, nowMs);
          this.networks.count(network, nowMs);
        },
      };
    }
    const blockKey = this.blocks.keyOf(visitor, publisherId);
    return {
      tooFast: this.blocks.over(blockKey, nowMs) ? 'placement_click_velocity' : false,
      count: () => {
        this.visitors.count(visitorKey, nowMs);
        this.networks.count(network, nowMs);
        this.blocks.count(blockKey, nowMs);
      },
    };
  }
}

/** About 40 MB at most (a key holds the user agent, up to 512 characters); a visitor past its last window is worth nothing kept. */
const VISITOR_CAPACITY = 100_000;
/** About 30 MB at most: a network needs a billable click of its own, 50,000 of them within 10 minutes is 80 a second on one instance. */
const NETWORK_CAPACITY = 50_000;
