import { withoutPort } from '../http/clientAddress.js';
import type { IpVerdict } from '../ivt/ipClassifier.js';
import type { IvtReason } from '../ivt/ivtReasons.js';
import type { TrafficClassifier } from '../ivt/trafficClassifier.js';

/** Longer user agents are cut before they are stored: nothing legitimate needs more. */
const MAX_STORED_USER_AGENT = 512;

/** Who sent an event, and whether that alone makes it invalid traffic. */
export interface Visitor {
  ip: IpVerdict;
  userAgent: string;
  /** The general invalid-traffic reason of the address or the user agent; '' when neither is one. */
  ivt: IvtReason | '';
}

/**
 * The address (without a port or brackets a proxy wrote: withoutPort) decides first (private, data
 * center), then the user agent (bot, none). `userAgent`
 * undefined with `userAgentKnown` false means the source never recorded one (imports): no verdict on it.
 */
export function classifyVisitor(
  traffic: TrafficClassifier,
  address: string,
  userAgent: string | undefined,
  userAgentKnown = true,
): Visitor {
  const ip = traffic.ip(withoutPort(address));
  const userAgentIvt = userAgentKnown ? traffic.userAgent(userAgent) : '';
  return { ip, userAgent: (userAgent ?? '').slice(0, MAX_STORED_USER_AGENT), ivt: ip.ivt || userAgentIvt };
}
