import { parseAddressText } from '../ivt/addressText.js';
import { SlidingWindowLimits, type WindowLimit } from './slidingWindowLimits.js';
import type { Visitor } from './visitor.js';

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

/**
 * The same for one placement's clicks from one block of networks: an IPv4 /24 or an IPv6 /48
 * (256 addresses or 256 homes' /56s), whatever the addresses and user agents in it. A publisher
 * clicking its own ads from a rented /24, one address after the other, stays under the two limits
 * above (try35 M4: 500 clicks in 30 s, each address twice). Twenty in 10 s and 120 in 10 minutes
 * (one every 5 s kept up, 720 an hour) for one placement: a real crowd on one block, a university's
 * or an office's addresses or a carrier's CGNAT pool, is a few hundred readers at most, each
 * clicking a chat ad a few times an hour; 720 an hour is 3 clicks an hour from each of 240 of
 * them, all on this one placement, and 20 clicks of independent people within 10 s needs a pace
 * several times that. Keyed with the placement, so a busy block's clicks on other publishers do
 * not use it up.
 */
export const BLOCK_CLICK_VELOCITY_LIMITS: readonly WindowLimit[] = [
  { events: 20, windowMs: 10_000 },
  { events: 120, windowMs: 600_000 },
];

/** What click velocity says of a click, and its count, for once the click is stored. */
export interface ClickPace {
  /** The rule that refused it: the visitor's or network's pace, or the placement's from one block. */
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
  private readonly blocks = new SlidingWindowLimits(BLOCK_CLICK_VELOCITY_LIMITS, BLOCK_CAPACITY);

  /** The verdict on the visitor's click of the placement at nowMs; nothing is counted until `count()`. */
  judge(visitor: Visitor, placementId: string, nowMs: number): ClickPace {
    const { address, network, block } = addressKeys(visitor);
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
    const blockKey = `${block} ${placementId}`;
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

/** About 25 MB at most (a key keeps 120 times): a block needs 20 billable clicks on one placement before it is refused at all. */
const BLOCK_CAPACITY = 20_000;

/**
 * The visitor's address, an IPv6 one by its /64, its network, an IPv6 address by its /56 (impression
 * velocity keys networks the same way), and its block, an IPv4 /24 or an IPv6 /48.
 */
export function addressKeys({ ip }: Visitor): { address: string; network: string; block: string } {
  const parsed = parseAddressText(ip.ip);
  if (parsed?.family !== 'ipv6') return { address: ip.ip, network: ip.ip, block: `${ip.ip.slice(0, ip.ip.lastIndexOf('.'))}/24` };
  return { address: `${parsed.high}:${parsed.low}/64`, network: `${parsed.high}:${parsed.low >>> 8}/56`, block: `${parsed.high}:${parsed.low >>> 16}/48` };
}
