import { billedEvent } from '../money/priceModels.js';
import { NIL_UUID, type TrackedEvent } from './trackedEvent.js';
import type { LinkRequest } from './linkRequest.js';
import type { TrackingClaims } from './trackingToken.js';
import { countryOfAddress } from '../geo/countryOfAddress.js';

/**
 * What a tracking link's event costs the advertiser: the signed price, for a valid event of the kind
 * the line item pays for (a tCPM impression, a CPC click). Invalid traffic costs nothing.
 */
function linkEventCost(type: 'impression' | 'click', claims: TrackingClaims, ivt: string): number {
  return ivt === '' && billedEvent[claims.m] === type ? claims.n : 0;
}

/** The events_v1 row of an impression or click that came through a tracking link. */
export function linkEvent(
  type: 'impression' | 'click',
  claims: TrackingClaims,
  { visitor, fetch }: LinkRequest,
  ivt: string,
  eventId: string,
  nowMs: number,
): TrackedEvent {
  return {
    event_id: eventId,
    event_time: nowMs,
    type,
    source: type === 'impression' ? 'pixel' : 'click',
    serve_id: claims.s,
    campaign_id: claims.c,
    line_item_id: claims.l,
    creative_id: claims.r,
    placement_id: claims.p,
    publisher_id: claims.u,
    price_model: claims.m,
    cost_nanos: linkEventCost(type, claims, ivt),
    revenue_nanos: 0,
    // A click's own id is what the advertiser's conversions quote.
    click_id: type === 'click' ? eventId : NIL_UUID,
    ip: visitor.ip.ip,
    ip_class: visitor.ip.ipClass,
    ip_network: visitor.ip.network,
    user_agent: visitor.userAgent,
    ivt,
    // Every column spelled out, none from NO_EVENT_CONTEXT: a spread costs 0.1 us of every pixel.
    fetch_dest: fetch.dest,
    fetch_mode: fetch.mode,
    fetch_site: fetch.site,
    user_key: claims.k ?? '',
    country: countryOfAddress(visitor.ip.ip) ?? '',
    // Kept for the conversions of a CPA serve, billed at this price (lineItemPricing.ts); a forged
    // token's price is nobody's.
    price_nanos: ivt === 'bad_token' ? 0 : claims.n,
    // Judged by the billing ceilings once the event is made (billingCeiling.ts).
    unbilled: '',
  };
}
